package io.healthmesh.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healthmesh.cli.config.Catalog;
import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.config.ResourceKind;
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
import io.healthmesh.streams.rules.DnsTargets;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code status}: what is healthy right now, from the compacted health-state topic. */
@Command(name = "status", mixinStandardHelpOptions = true, description = {
    "The current state of every entity, as the topology last published it to health-state:",
    "state, since when, member counts (for an endpoint: consecutive successes and failures) and thresholds.",
    "--edges shows instead which state every DNS edge serves; --xds what every xDS server sent each client."})
final class StatusCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

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

  @Override
  public Integer call() throws Exception {
    if (edges) {
      return EdgeStatusView.print(cluster, format == Format.json, spec.commandLine().getOut());
    }
    if (xds) {
      return XdsStatusView.print(cluster, format == Format.json, spec.commandLine().getOut());
    }
    EntityKind only = kind == null ? null : kind(kind);
    Pattern names = name == null ? null : Pattern.compile(Pattern.quote(name).replace("*", "\\E.*\\Q"));
    SchemaRegistryClient registry = cluster.registry();
    Map<EntityKey, HealthState> current = new TopicScan(cluster.client(), false).latest(Topics.HEALTH_STATE.name(),
        Topics.HEALTH_STATE.keySerde(registry).deserializer(), Topics.HEALTH_STATE.valueSerde(registry).deserializer(),
        w -> spec.commandLine().getErr().println("warning: " + w));
    List<String> warnings = new ArrayList<>();
    Thresholds thresholds = new Thresholds(new ConfigTopics(cluster.client(), registry).read(warnings));
    warnings.forEach(w -> spec.commandLine().getErr().println("warning: " + w));
    List<Map.Entry<EntityKey, HealthState>> rows = current.entrySet().stream()
        .filter(e -> only == null || e.getKey().getKind() == only)
        .filter(e -> names == null || names.matcher(e.getKey().getName()).matches())
        .filter(e -> states == null || states.contains(e.getValue().getStatus()))
        .sorted(Comparator.comparing((Map.Entry<EntityKey, HealthState> e) -> e.getKey().getKind())
            .thenComparing(e -> e.getKey().getName()))
        .toList();
    PrintWriter out = spec.commandLine().getOut();
    if (format == Format.json) {
      ArrayNode list = JSON.createArrayNode();
      for (Map.Entry<EntityKey, HealthState> e : rows) {
        HealthState s = e.getValue();
        ObjectNode row = list.addObject().put("kind", e.getKey().getKind().name()).put("name", e.getKey().getName())
            .put("state", s.getStatus().name()).put("since", s.getSince().toString()).put("region", s.getRegion())
            .put("healthy", s.getHealthyCount()).put("unhealthy", s.getUnhealthyCount())
            .put("unknown", s.getUnknownCount()).put("version", s.getVersion());
        String t = thresholds.of(e.getKey());
        if (t != null) {
          row.put("thresholds", t);
        }
        if (s.getLastKnownStatus() != null) {
          row.put("lastKnown", s.getLastKnownStatus().name()); // R-OP-2
        }
      }
      out.println(JSON.writeValueAsString(list));
    } else {
      out.printf("%-24s %-40s %-24s %-25s %-16s %-16s %s%n", "KIND", "NAME", "STATE", "SINCE", "UP/DOWN/UNKNOWN",
          "THRESHOLDS", "REGION");
      Map<HealthStatus, Integer> totals = new EnumMap<>(HealthStatus.class);
      for (Map.Entry<EntityKey, HealthState> e : rows) {
        HealthState s = e.getValue();
        String t = thresholds.of(e.getKey());
        out.printf("%-24s %-40s %-24s %-25s %-16s %-16s %s%n", e.getKey().getKind(), e.getKey().getName(),
            s.getStatus() + (s.getLastKnownStatus() == null ? "" : " (was " + s.getLastKnownStatus() + ")"),
            s.getSince(), s.getHealthyCount() + "/" + s.getUnhealthyCount() + "/" + s.getUnknownCount(),
            t == null ? "-" : t, s.getRegion().isEmpty() ? "-" : s.getRegion());
        totals.merge(s.getStatus(), 1, Integer::sum);
      }
      out.println(rows.size() + " entities: " + totals.getOrDefault(HealthStatus.HEALTHY, 0) + " HEALTHY, "
          + totals.getOrDefault(HealthStatus.UNHEALTHY, 0) + " UNHEALTHY, "
          + totals.getOrDefault(HealthStatus.UNKNOWN, 0) + " UNKNOWN");
    }
    out.flush();
    return 0;
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
    private final Catalog config;
    private final Map<String, HealthCheckSpec> external = new LinkedHashMap<>();

    Thresholds(Catalog config) {
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
          return s == null ? null : consecutive(s.getHealthCheck());
        }
        case EXTERNAL_ENDPOINT -> {
          HealthCheckSpec spec = external.get(key.getName());
          return spec == null ? null : consecutive(spec);
        }
        case HEALTH_SOURCE -> {
          HealthSource source = config.get(ResourceKind.HEALTH_SOURCE, key.getName());
          HealthAggregationPolicy p = source == null ? null
              : config.get(ResourceKind.HEALTH_AGGREGATION_POLICY, source.getHealthAggregationPolicy());
          return p == null ? null : ">=" + p.getHealthyPercentThreshold() + "% and >=" + p.getMinHealthyThreshold();
        }
        case COMPOSITE_HEALTH_CHECK, DRY_RUN_COMPOSITE_HEALTH_CHECK -> {
          CompositeHealthCheck c = config.get(ResourceKind.COMPOSITE_HEALTH_CHECK, key.getName());
          return c == null ? null : style(c);
        }
        default -> {
          return null;
        }
      }
    }

    /** R-OP-4: "ALL", "ANY", ">=2 of 3", with "+critical a,b". */
    private static String style(CompositeHealthCheck c) {
      String style = switch (c.getStyle()) {
        case AT_LEAST_N -> ">=" + c.getMinHealthySources() + " of " + c.getHealthSources().size();
        default -> c.getStyle().name();
      };
      return c.getCriticalSources().isEmpty() ? style : style + " +critical " + String.join(",", c.getCriticalSources());
    }

    /** "2 up/2 down", with R-OP-3's ", dwell 10s" and ", damp >3/300s" when set. */
    private static String consecutive(HealthCheckSpec spec) {
      String thresholds = spec.getHealthyThreshold() + " up/" + spec.getUnhealthyThreshold() + " down";
      if (spec.getMinDwellSec() > 0) {
        thresholds += ", dwell " + spec.getMinDwellSec() + "s";
      }
      if (spec.getFlapDamping() != null) {
        thresholds += ", damp >" + spec.getFlapDamping().getMaxFailures() + "/" + spec.getFlapDamping().getWindowSec() + "s";
      }
      return thresholds;
    }
  }
}
