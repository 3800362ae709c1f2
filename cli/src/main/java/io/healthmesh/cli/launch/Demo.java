package io.healthmesh.cli.launch;

import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.config.Resource;
import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.edge.EdgeApp;
import io.healthmesh.edge.EdgeMain;
import io.healthmesh.edge.EdgeSettings;
import io.healthmesh.edge.dnssec.BindKeyFiles;
import io.healthmesh.edge.dnssec.KeyTiming;
import io.healthmesh.edge.dnssec.ZoneKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.observability.MetricsServer;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.HealthStreamsApp;
import io.healthmesh.streams.StreamsSettings;
import io.healthmesh.xds.RegionService;
import io.healthmesh.xds.XdsApp;
import io.healthmesh.xds.XdsSettings;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;

/**
 * Everything in one process: broker, registry, topology, one edge per sample region and the
 * probe simulator, on the sample configuration. Closing stops them in reverse order.
 */
public final class Demo implements AutoCloseable {
  private final List<AutoCloseable> started = new ArrayList<>();
  public static final String DEMO_ZONE = "example.internal.";
  final Path dataDir;
  /** What the probe simulator makes fail; null without the simulator. */
  Faults faults;
  String registryUrl;
  String bootstrap;
  final List<EdgeApp> edges = new ArrayList<>();
  XdsApp xds;
  final Map<String, MetricsServer> metrics = new LinkedHashMap<>();

  private Demo(Path dataDir) {
    this.dataDir = dataDir;
  }

  /**
   * Where the demo listens; 0 picks a free port.
   *
   * @param dns one port per region of {@link SampleConfig#REGIONS}
   * @param metrics the first metrics port: topology, the two edges and the registry on the next three, the
   *     xDS server on the sixth (the fifth is `probe run`'s default)
   * @param xds the xDS server's port
   */
  public record Ports(int kafka, int registry, List<Integer> dns, int metrics, int xds) {
    public Ports(int kafka, int registry, List<Integer> dns, int metrics) {
      this(kafka, registry, dns, metrics, 0);
    }

    public static Ports free() {
      return new Ports(0, 0, List.of(0, 0), 0, 0);
    }

    int metrics(int index) {
      return metrics == 0 ? 0 : metrics + index;
    }
  }

  public static Demo start(Path dataDir, boolean fresh, Ports ports) throws Exception {
    return start(dataDir, fresh, ports, true);
  }

  /** @param simulate whether to run the probe simulator for the sample services */
  public static Demo start(Path dataDir, boolean fresh, Ports ports, boolean simulate) throws Exception {
    int kafkaPort = ports.kafka();
    int registryPort = ports.registry();
    List<Integer> edgePorts = ports.dns();
    if (fresh) {
      deleteRecursively(dataDir);
    }
    Files.createDirectories(dataDir);
    boolean configured = Files.exists(dataDir.resolve("configured"));
    Demo demo = new Demo(dataDir);
    try {
      EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dataDir.resolve("kafka")).port(kafkaPort)
          .partitions(3).start();
      demo.started.add(kafka);
      demo.bootstrap = kafka.bootstrapServers();
      Properties r = new Properties();
      r.setProperty(RegistrySettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      r.setProperty(RegistrySettings.PORT, String.valueOf(registryPort));
      SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.from(r));
      demo.started.add(registry);
      PrometheusMeterRegistry registryMeters = MetricsServer.newRegistry("registry");
      registry.bindTo(registryMeters);
      MetricsServer registryMetrics = MetricsServer.start("127.0.0.1", ports.metrics(3), registryMeters, registry::healthy);
      demo.registryUrl = registry.url();
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      ConfigTopics config = new ConfigTopics(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
          kafka.bootstrapServers()), client);
      if (!configured) {
        config.write(SampleConfig.resources());
        Files.writeString(dataDir.resolve("configured"), "sample configuration applied\n");
      }
      Properties s = new Properties();
      s.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      s.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, registry.url());
      s.setProperty(StreamsSettings.APPLICATION_ID, "healthmesh-demo");
      s.setProperty(StreamsSettings.STATE_DIR, dataDir.resolve("streams").toString());
      PrometheusMeterRegistry topologyMeters = MetricsServer.newRegistry("topology");
      AtomicReference<HealthStreamsApp> running = new AtomicReference<>();
      // served first, so that the topology answers status queries on its metrics port
      demo.serve("topology", MetricsServer.start("127.0.0.1", ports.metrics(0), topologyMeters,
          () -> running.get() != null && running.get().ready()));
      HealthStreamsApp topology = HealthStreamsApp.start(StreamsSettings.from(s), client, topologyMeters,
          Duration.ofMinutes(2), demo.metrics.get("topology"));
      running.set(topology);
      demo.started.add(topology);
      Path keys = demoKeys(dataDir.resolve("dnssec-keys"));
      for (int i = 0; i < SampleConfig.REGIONS.size(); i++) {
        Properties e = new Properties();
        e.setProperty(EdgeSettings.DNSSEC_KEYS_DIR, keys.toString());
        e.setProperty(EdgeSettings.REGION, SampleConfig.REGIONS.get(i));
        e.setProperty(EdgeSettings.PORT, String.valueOf(edgePorts.get(i)));
        e.setProperty(EdgeSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        e.setProperty(EdgeSettings.SCHEMA_REGISTRY_URL, registry.url());
        e.setProperty(EdgeSettings.DECISION_SAMPLE_RATE, "0.01");
        e.setProperty(EdgeSettings.CLIENT_SUBNET_REGIONS, "10.200.0.0/16=europe-west1");
        EdgeSettings edgeSettings = EdgeSettings.from(e);
        PrometheusMeterRegistry edgeMeters = EdgeMain.registry(edgeSettings);
        EdgeApp edge = EdgeApp.start(edgeSettings, client, edgeMeters);
        demo.started.add(edge);
        demo.edges.add(edge);
        demo.serve("edge " + SampleConfig.REGIONS.get(i), MetricsServer.start("127.0.0.1", ports.metrics(1 + i),
            edgeMeters, edge::notReady));
      }
      demo.serve("registry", registryMetrics);
      demo.startXds(client, ports);
      if (simulate) {
        awaitConfigurationTakenIn(kafka, client, Duration.ofSeconds(60));
        demo.faults = Faults.follow(kafka.bootstrapServers(), client);
        demo.started.add(demo.faults);
        demo.started.add(new ProbeSimulator(kafka.bootstrapServers(), client, config, demo.faults).start());
      }
      for (EdgeApp edge : demo.edges) {
        edge.awaitReady(Duration.ofSeconds(60));
      }
      return demo;
    } catch (Exception | Error e) {
      demo.close();
      throw e;
    }
  }

  /**
   * The consumer side of the sample: a small gRPC backend on each published service's address
   * that answers its region, and the xDS server that tells clients which region to call (R-XDS-1).
   */
  private void startXds(SchemaRegistryClient client, Ports ports) {
    for (Resource r : SampleConfig.resources()) {
      if (r.kind() == ResourceKind.FORWARDING_RULE
          && ((ForwardingRule) r.value()).getPublishedService()) {
        ForwardingRule rule = (ForwardingRule) r.value();
        started.add(RegionService.start(rule.getIpAddress(), rule.getPort(), rule.getRegion()));
      }
    }
    Properties x = new Properties();
    x.setProperty(XdsSettings.BOOTSTRAP_SERVERS, bootstrap);
    x.setProperty(XdsSettings.SCHEMA_REGISTRY_URL, registryUrl);
    x.setProperty(XdsSettings.PORT, String.valueOf(ports.xds()));
    x.setProperty(XdsSettings.NAME, "xds-demo");
    XdsSettings settings = XdsSettings.from(x);
    PrometheusMeterRegistry meters = MetricsServer.newRegistry("xds", "xds", settings.name());
    xds = XdsApp.start(settings, client, meters);
    started.add(xds);
    serve("xds", MetricsServer.start("127.0.0.1", ports.metrics(5), meters, xds::ready));
  }

  private void serve(String component, MetricsServer server) {
    started.add(server);
    metrics.put(component, server);
  }

  /** What a newcomer needs to try it, in a short box. */
  /** The demo zone's keys, made on its first start: every edge signs with them (R-DNSSEC-3). */
  private static Path demoKeys(Path dir) throws Exception {
    Name zone = Name.fromString(DEMO_ZONE);
    if (BindKeyFiles.readZone(Files.createDirectories(dir), zone).isEmpty()) {
      BindKeyFiles.writeNewPair(dir, zone, DNSSEC.Algorithm.ECDSAP256SHA256, ZoneKey.DEFAULT_TTL,
          KeyTiming.from(Instant.now().truncatedTo(ChronoUnit.SECONDS)));
    }
    return dir;
  }


  public String bootstrap() {
    return bootstrap;
  }

  public String registryUrl() {
    return registryUrl;
  }

  public Faults faults() {
    return faults;
  }

  public List<EdgeApp> edges() {
    return edges;
  }

  public XdsApp xds() {
    return xds;
  }

  public Map<String, MetricsServer> metrics() {
    return metrics;
  }

  public String banner() {
    List<String> lines = new ArrayList<>();
    lines.add("healthmesh demo is running (Ctrl-C stops it; data in " + dataDir + ")");
    lines.add("");
    for (int i = 0; i < edges.size(); i++) {
      lines.add("edge " + SampleConfig.REGIONS.get(i) + ":  dig @127.0.0.1 -p " + edges.get(i).port() + " api.example.internal +short");
    }
    int port = edges.get(0).port();
    lines.add("failover:  dig @127.0.0.1 -p " + port + " db.example.internal +short   (primary 127.0.1.100, 10% trickle)");
    lines.add("geo:       dig @127.0.0.1 -p " + port + " www.example.internal +short");
    lines.add("           dig @127.0.0.1 -p " + port + " www.example.internal +short +subnet=10.200.0.0/16");
    lines.add("dnssec:    dig @127.0.0.1 -p " + port + " api.example.internal +dnssec   (trust anchor: ./healthctl"
        + " dnssec ds " + DEMO_ZONE + " --keys-dir " + dataDir.resolve("dnssec-keys") + ")");
    String xdsFlag = xds.port() == 18000 ? "" : " --server 127.0.0.1:" + xds.port();
    lines.add("gRPC/xDS:  ./healthctl xds watch orders-global" + xdsFlag + "   (xds:///orders-global, R-CH-8 failover)");
    lines.add("break it:  ./healthctl demo fail orders-use1      (or orders-use1/vm-1)");
    lines.add("heal it:   ./healthctl demo heal all");
    lines.add("config:    ./healthctl get all        ./healthctl apply -f examples/demo.yaml");
    lines.add("registry:  " + registryUrl + "/subjects      kafka: " + bootstrap);
    metrics.forEach((component, server) -> lines.add("metrics:   " + server.url() + "   (" + component + ")"));
    int width = lines.stream().mapToInt(String::length).max().orElse(0);
    StringBuilder box = new StringBuilder("+" + "-".repeat(width + 2) + "+\n");
    lines.forEach(l -> box.append("| ").append(l).append(" ".repeat(width - l.length())).append(" |\n"));
    return box.append("+").append("-".repeat(width + 2)).append("+").toString();
  }

  @Override
  public void close() {
    for (int i = started.size() - 1; i >= 0; i--) {
      try {
        started.get(i).close();
      } catch (Exception e) {
        System.err.println("while stopping: " + e);
      }
    }
    started.clear();
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /**
   * Probes start once the topology has published a state for every load balancer and composite
   * of the sample configuration. A probe that overtakes a load balancer's configuration (it
   * reaches the probe partitions through an internal topic) makes that load balancer's first
   * state depend on how partitions interleaved, and an audit replay would tell it differently
   * (R-AUD-2). A demo that cannot confirm it in time starts anyway.
   */
  private static void awaitConfigurationTakenIn(EmbeddedKafka kafka, SchemaRegistryClient client, Duration timeout) {
    Set<String> missing = new HashSet<>();
    for (Resource r : SampleConfig.resources()) {
      if (r.kind() == ResourceKind.FORWARDING_RULE) {
        missing.add(EntityKind.FORWARDING_RULE + "|" + r.key());
      } else if (r.kind() == ResourceKind.COMPOSITE_HEALTH_CHECK) {
        missing.add(EntityKind.COMPOSITE_HEALTH_CHECK + "|" + r.key());
      }
    }
    var topic = Topics.HEALTH_STATE;
    try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
        CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
        topic.keySerde(client).deserializer(), topic.valueSerde(client).deserializer())) {
      var partitions = consumer.partitionsFor(topic.name()).stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!missing.isEmpty() && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> missing.remove(r.key().getKind() + "|" + r.key().getName()));
      }
    }
    if (!missing.isEmpty()) {
      System.err.println("demo: no state yet for " + missing + "; starting the probe simulator anyway");
    }
  }
}
