package io.healthmesh.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healthmesh.cli.config.Catalog;
import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.cli.kafka.Bytes;
import io.healthmesh.cli.kafka.TopicScan;
import io.healthmesh.config.BackendService;
import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.HealthSource;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.query.StatusClient;
import io.healthmesh.streams.query.StatusQuery;
import io.healthmesh.streams.query.StatusRow;
import io.healthmesh.streams.query.StatusTable;
import io.healthmesh.streams.rules.DnsTargets;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code status}: what is healthy right now, from the topology's stores or the compacted health-state topic. */
@Command(name = "status", mixinStandardHelpOptions = true, description = {
    "The current state of every entity: state, since when, member counts (for an endpoint: consecutive successes and",
    "failures) and thresholds. Asked of the topology's stores when one answers (--topology-url); else read from",
    "health-state, as the topology last published it, where an endpoint's counts are those of its last transition.",
    "--edges shows instead which state every DNS edge serves; --xds what every xDS server sent each client."})
final class StatusCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] HEADER = StatusTable.COLUMNS.toArray(String[]::new);
  private static final int[] WIDTHS = {24, 40, 24, 25, 16, 16, 12};
  /** Makes the table's rows before the table is. */
  private static final Columns TABLE = new Columns(WIDTHS);

  enum Format { table, json }

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClusterOptions cluster;

  @Option(names = "--kind", description = "Only this entity kind, e.g. ENDPOINT or composite-health-check.")
  String kind;

  @Option(names = "--name", description = "Only entities whose name matches; * matches any text (orders-*).")
  String name;

  @Option(names = "--state", split = ",", description = "Only these states: HEALTHY, UNHEALTHY, UNKNOWN.")
  Set<HealthStatus> states;

  @Option(names = {"-o", "--output"}, defaultValue = "table", description = "table or json (default: ${DEFAULT-VALUE}).")
  Format format;

  @Option(names = "--edges", description = "Which snapshot every DNS edge serves, and how far behind the topics it is.")
  boolean edges;

  @Option(names = "--xds", description = "What every xDS server serves, what each client was last sent and whether it"
      + " acknowledged it (NACKs counted, with the last reason).")
  boolean xds;

  @Option(names = "--topology-url", paramLabel = "URL", defaultValue = "${env:HEALTHMESH_TOPOLOGY_URL}",
      description = "The topology to ask (its metrics port): it answers from its stores, without reading health-state."
          + " Default: env HEALTHMESH_TOPOLOGY_URL, else " + TopologyStatus.DEMO_URL + " when --bootstrap-servers is"
          + " the demo's. When none answers, health-state is read instead, and a note says so.")
  String topologyUrl;

  @Option(names = "--from-topic", description = "Read health-state even when a topology would answer.")
  boolean fromTopic;

  @Option(names = "--timings", description = "Print to stderr how long each step took.")
  boolean timings;

  @Override
  public Integer call() throws Exception {
    if (edges) {
      return EdgeStatusView.print(cluster, format == Format.json, spec.commandLine().getOut());
    }
    if (xds) {
      return XdsStatusView.print(cluster, format == Format.json, spec.commandLine().getOut());
    }
    Timings steps = new Timings(timings);
    EntityKind only = kind == null ? null : kind(kind);
    StatusQuery query = new StatusQuery(only == null ? Set.of() : Set.of(only), name,
        states == null ? Set.of() : states);
    PrintWriter out = spec.commandLine().getOut();
    if (format == Format.json) {
      StringWriter text = new StringWriter();
      try (JsonGenerator json = JSON.getFactory().createGenerator(text).useDefaultPrettyPrinter()) {
        json.writeStartArray();
        for (StatusRow row : answer(query, only, steps, TopologyStatus::ask, row -> row,
            (x, y) -> byKindAndName(x.key().getKind(), x.key().getName(), y.key().getKind(), y.key().getName()))) {
          row.write(json);
        }
        json.writeEndArray();
      }
      out.println(text);
    } else {
      List<Line> lines = answer(query, only, steps, (url, q, rows) -> TopologyStatus.table(url, q, r -> rows.accept(line(r))),
          row -> line(StatusTable.row(row)), (x, y) -> byKindAndName(x.kind(), x.name(), y.kind(), y.name()));
      // Each row was made as it arrived: written as it is, not copied into one text of the table
      // first (a table of 200,000 rows is 33 MB; copying, then encoding it whole, doubled this step).
      out.print(TABLE.line(HEADER));
      Map<HealthStatus, Integer> totals = new EnumMap<>(HealthStatus.class);
      for (Line line : lines) {
        out.print(line.text());
        totals.merge(line.status(), 1, Integer::sum);
      }
      out.println(lines.size() + " entities: " + totals.getOrDefault(HealthStatus.HEALTHY, 0) + " HEALTHY, "
          + totals.getOrDefault(HealthStatus.UNHEALTHY, 0) + " UNHEALTHY, "
          + totals.getOrDefault(HealthStatus.UNKNOWN, 0) + " UNKNOWN");
    }
    out.flush();
    steps.step("output");
    steps.print(spec.commandLine().getErr());
    return 0;
  }

  /** Asks a topology, giving each row as it arrives. */
  @FunctionalInterface
  private interface Asker<T> {
    int ask(String url, StatusQuery query, Consumer<T> rows) throws StatusClient.Unanswered;
  }

  /**
   * The rows asked for, sorted: from the topology's stores, each made as it arrives (while the
   * topology still reads), or else from health-state, each as {@code made} makes it, side by side.
   */
  private <T> List<T> answer(StatusQuery query, EntityKind only, Timings steps, Asker<T> topology,
      Function<StatusRow, T> made, Comparator<T> order) {
    List<T> shown = null;
    String url = topologyUrl();
    if (url != null && !fromTopic) {
      try {
        List<T> arrived = new ArrayList<>();
        int instances = topology.ask(url, query, arrived::add);
        shown = arrived;
        steps.step("topology's stores (" + shown.size() + " entities, " + instances + " instance(s))");
      } catch (StatusClient.Unanswered e) {
        spec.commandLine().getErr().println("note: no topology answered (" + e.getMessage()
            + "); reading health-state instead");
      }
    }
    if (shown == null) {
      shown = fromTopic(query, only, steps).parallelStream().map(made).collect(Collectors.toCollection(ArrayList::new));
    }
    // each path answers with the rows asked for only
    shown.sort(order);
    return shown;
  }

  /** Kind, then name, compared directly: 200,000 rows are sorted with it. */
  private static int byKindAndName(EntityKind xKind, String xName, EntityKind yKind, String yName) {
    int kinds = xKind.compareTo(yKind);
    return kinds != 0 ? kinds : xName.compareTo(yName);
  }

  /** A row of the table: its text, and what it is sorted and counted by. */
  private record Line(EntityKind kind, String name, HealthStatus status, String text) {}

  private static Line line(StatusTable.Row r) {
    return new Line(r.kind(), r.name(), r.status(), TABLE.line(r.cells()));
  }

  /** The topology to ask: the flag's or the environment's, else the demo's when the cluster is the demo's. */
  private String topologyUrl() {
    if (topologyUrl != null && !topologyUrl.isBlank()) {
      return topologyUrl;
    }
    return ClusterOptions.DEFAULT_BOOTSTRAP.equals(cluster.bootstrapServers()) ? TopologyStatus.DEMO_URL : null;
  }

  /** The rows as health-state last says them, with thresholds from the configuration topics. */
  private List<StatusRow> fromTopic(StatusQuery query, EntityKind only, Timings steps) {
    SchemaRegistryClient registry = cluster.registry();
    ConfigTopics config = new ConfigTopics(cluster.client(), registry);
    List<String> warnings = Collections.synchronizedList(new ArrayList<>());
    // Without a name or state, the configuration the rows need is known before them: read it beside them.
    Background<Thresholds> early = name == null && states == null ? Background.start("read-thresholds",
        () -> Thresholds.read(config, only == null ? EnumSet.allOf(EntityKind.class) : EnumSet.of(only), warnings))
        : null;
    // A key holds its name as UTF-8: one without the name's literal parts is not decoded at all.
    List<byte[]> literals = name == null ? List.of() : Arrays.stream(name.split("\\*")).filter(p -> !p.isEmpty())
        .map(p -> p.getBytes(StandardCharsets.UTF_8)).toList();
    Map<EntityKey, HealthState> current;
    try (TopicScan scan = new TopicScan(cluster.client(), false)) {
      current = scan.latest(Topics.HEALTH_STATE.name(), Topics.HEALTH_STATE.keySerde(registry).deserializer(),
          Topics.HEALTH_STATE.valueSerde(registry).deserializer(),
          bytes -> literals.stream().allMatch(l -> Bytes.contains(bytes, l)),
          k -> (only == null || k.getKind() == only) && query.matchesName(k.getName()),
          w -> spec.commandLine().getErr().println("warning: " + w));
    }
    steps.step("health-state (" + current.size() + " entities)");
    List<EntityKey> shown = current.entrySet().stream()
        .filter(e -> query.matchesState(e.getValue().getStatus())).map(Map.Entry::getKey).toList();
    Thresholds thresholds = early != null ? early.join() : Thresholds.read(config, shown, warnings);
    warnings.forEach(w -> spec.commandLine().getErr().println("warning: " + w));
    steps.step("thresholds from the configuration");
    List<StatusRow> rows = new ArrayList<>(shown.size());
    for (EntityKey key : shown) {
      rows.add(new StatusRow(key, current.get(key), thresholds.of(key)));
    }
    return rows;
  }

  private EntityKind kind(String text) {
    String normal = text.toUpperCase(Locale.ROOT).replace('-', '_');
    for (EntityKind k : EntityKind.values()) {
      if (k.name().equals(normal) || (k.name() + "S").equals(normal)) {
        return k;
      }
    }
    throw new CommandLine.ParameterException(spec.commandLine(), "unknown kind '" + text + "'; kinds: "
        + Arrays.toString(EntityKind.values()));
  }

  /** What each kind of entity is judged by, from the configuration in force, as the README's rules say. */
  private static final class Thresholds {
    /** At most this many addresses are looked for in the record sets' bytes; more read every record set. */
    private static final int ADDRESSES_SOUGHT = 16;
    private final Catalog config;
    private final Map<String, HealthCheckSpec> external = new LinkedHashMap<>();

    /**
     * The configuration that judges the entities shown, and no more: record sets only when an
     * external endpoint is shown, and then, for a few, only those whose bytes hold its address.
     */
    static Thresholds read(ConfigTopics topics, List<EntityKey> shown, List<String> warnings) {
      Set<EntityKind> kinds = EnumSet.noneOf(EntityKind.class);
      Set<String> services = new HashSet<>();
      List<byte[]> addresses = new ArrayList<>();
      for (EntityKey key : shown) {
        kinds.add(key.getKind());
        if (key.getKind() == EntityKind.ENDPOINT) {
          int slash = key.getName().indexOf('/');
          services.add(slash < 0 ? key.getName() : key.getName().substring(0, slash));
        } else if (key.getKind() == EntityKind.EXTERNAL_ENDPOINT) {
          addresses.add(key.getName().getBytes(StandardCharsets.UTF_8));
        }
      }
      String recordSets = ResourceKind.RESOURCE_RECORD_SET.topic().name();
      String backendServices = ResourceKind.BACKEND_SERVICE.topic().name();
      boolean fewAddresses = addresses.size() <= ADDRESSES_SOUGHT;
      return read(topics, kinds, r -> {
        if (r.topic().equals(recordSets)) {
          return !fewAddresses || r.value() == null || addresses.stream().anyMatch(a -> Bytes.contains(r.value(), a));
        }
        return !r.topic().equals(backendServices) || r.key() == null
            || services.contains(new String(r.key(), StandardCharsets.UTF_8));
      }, warnings);
    }

    /** What judges every entity of these kinds: all of their configuration. */
    static Thresholds read(ConfigTopics topics, Set<EntityKind> kinds, List<String> warnings) {
      return read(topics, kinds, null, warnings);
    }

    private static Thresholds read(ConfigTopics topics, Set<EntityKind> shown,
        Predicate<ConsumerRecord<byte[], byte[]>> only, List<String> warnings) {
      Set<ResourceKind> kinds = EnumSet.noneOf(ResourceKind.class);
      for (EntityKind kind : shown) {
        switch (kind) {
          case ENDPOINT -> kinds.add(ResourceKind.BACKEND_SERVICE);
          case EXTERNAL_ENDPOINT -> kinds.add(ResourceKind.RESOURCE_RECORD_SET);
          case HEALTH_SOURCE -> kinds.addAll(List.of(ResourceKind.HEALTH_SOURCE, ResourceKind.HEALTH_AGGREGATION_POLICY));
          case COMPOSITE_HEALTH_CHECK, DRY_RUN_COMPOSITE_HEALTH_CHECK -> kinds.add(ResourceKind.COMPOSITE_HEALTH_CHECK);
          default -> { }
        }
      }
      return new Thresholds(kinds.isEmpty() ? new Catalog() : topics.read(kinds, only, warnings));
    }

    private Thresholds(Catalog config) {
      this.config = config;
      for (ResourceRecordSet rrs : config.<ResourceRecordSet>values(ResourceKind.RESOURCE_RECORD_SET)) {
        HealthCheckSpec spec = DnsTargets.spec(rrs.getRoutingPolicy());
        DnsTargets.externalEndpoints(rrs).forEach(a -> external.putIfAbsent(a, spec));
      }
    }

    String of(EntityKey key) {
      switch (key.getKind()) {
        case ENDPOINT -> {
          int slash = key.getName().indexOf('/');
          BackendService s = slash < 0 ? null : config.get(ResourceKind.BACKEND_SERVICE, key.getName().substring(0, slash));
          return s == null ? null : io.healthmesh.streams.rules.Thresholds.of(s.getHealthCheck());
        }
        case EXTERNAL_ENDPOINT -> {
          HealthCheckSpec spec = external.get(key.getName());
          return spec == null ? null : io.healthmesh.streams.rules.Thresholds.of(spec);
        }
        case HEALTH_SOURCE -> {
          HealthSource source = config.get(ResourceKind.HEALTH_SOURCE, key.getName());
          HealthAggregationPolicy p = source == null ? null
              : config.get(ResourceKind.HEALTH_AGGREGATION_POLICY, source.getHealthAggregationPolicy());
          return p == null ? null : io.healthmesh.streams.rules.Thresholds.of(p);
        }
        case COMPOSITE_HEALTH_CHECK, DRY_RUN_COMPOSITE_HEALTH_CHECK -> {
          CompositeHealthCheck c = config.get(ResourceKind.COMPOSITE_HEALTH_CHECK, key.getName());
          return c == null ? null : io.healthmesh.streams.rules.Thresholds.of(c);
        }
        default -> {
          return null;
        }
      }
    }
  }
}
