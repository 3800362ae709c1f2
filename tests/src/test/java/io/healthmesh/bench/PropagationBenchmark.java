package io.healthmesh.bench;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.Endpoint;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.LoadBalancerTarget;
import io.healthmesh.config.LoadBalancerType;
import io.healthmesh.config.LoadBalancingScheme;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.edge.EdgeApp;
import io.healthmesh.edge.EdgeSettings;
import io.healthmesh.edge.dnssec.SignedZoneFixture;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.HealthStreamsApp;
import io.healthmesh.streams.StreamsSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * From producing the probe result that flips a backend to the first DNS answer that reflects it,
 * through the real broker, topology (exactly_once_v2) and edge; p50 and p99 over many flips.
 */
public final class PropagationBenchmark {
  private static final int FLIPS = Integer.getInteger("bench.flips", 100);
  private static final String LB_ADDRESS = "10.1.0.100";
  private static final String STANDBY = "10.9.0.1";
  /** {@code lb}: a backend behind an application LB (two Streams stages); {@code external}: an address probed directly (one). */
  private static String target;
  /** WRR record sets configured besides the measured one, each over two probed external endpoints. */
  private static int background;
  /** -Dbench.dnssec=true: the zone is signed, and DNS is asked with DO (R-DNSSEC-1). */
  private static boolean dnssec;

  private PropagationBenchmark() {}

  public static void main(String[] args) throws Exception {
    target = System.getProperty("bench.target", "lb");
    background = Integer.getInteger("bench.background", 0);
    dnssec = Boolean.getBoolean("bench.dnssec");
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      configure(kafka, client);
      Properties sp = new Properties();
      sp.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      sp.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, registry.url());
      sp.setProperty(StreamsSettings.APPLICATION_ID, "bench-propagation");
      sp.setProperty(StreamsSettings.STATE_DIR, Files.createTempDirectory("bench-propagation").toString());
      sp.setProperty(StreamsSettings.COMMIT_INTERVAL_MS, System.getProperty("bench.commit.ms", "100"));
      sp.setProperty("streams.poll.ms", System.getProperty("bench.poll.ms", "100"));
      Properties ep = new Properties();
      ep.setProperty(EdgeSettings.REGION, "us-east1");
      ep.setProperty(EdgeSettings.PORT, "0");
      ep.setProperty(EdgeSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      ep.setProperty(EdgeSettings.SCHEMA_REGISTRY_URL, registry.url());
      if (dnssec) {
        java.nio.file.Path keys = Files.createTempDirectory("bench-propagation-keys");
        SignedZoneFixture.keys(keys, "bench.example.");
        ep.setProperty(EdgeSettings.DNSSEC_KEYS_DIR, keys.toString());
      }
      try (HealthStreamsApp topology = HealthStreamsApp.start(StreamsSettings.from(sp), client, new SimpleMeterRegistry(),
              Duration.ofMinutes(2));
          EdgeApp edge = EdgeApp.start(EdgeSettings.from(ep), client, new SimpleMeterRegistry());
          KafkaProducer<String, ProbeResult> probes = new KafkaProducer<>(Map.of(
              ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ProducerConfig.LINGER_MS_CONFIG, 0),
              Topics.PROBE_RESULTS.keySerde(client).serializer(), Topics.PROBE_RESULTS.valueSerde(client).serializer())) {
        edge.awaitReady(Duration.ofMinutes(5));
        configureBackground(kafka, client, edge);
        awaitBackground(kafka, client, edge);
        SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", edge.port()));
        resolver.setTimeout(Duration.ofSeconds(1));
        if (dnssec) {
          resolver.setEDNS(0, 1232, org.xbill.DNS.ExtendedFlags.DO);
        }
        // Warm up: down and up once, each seen in DNS, so the configuration is in force everywhere.
        flip(probes, false, resolver, Duration.ofSeconds(60));
        flip(probes, true, resolver, Duration.ofSeconds(60));
        List<Long> millis = new ArrayList<>();
        boolean healthy = true;
        for (int i = 0; i < FLIPS; i++) {
          healthy = !healthy;
          millis.add(flip(probes, healthy, resolver, Duration.ofSeconds(10)));
        }
        Collections.sort(millis);
        System.out.printf("%npropagation" + (dnssec ? ", signed answers," : "") + " to a" + (target.equals("external") ? "n external endpoint" : " load balancer")
            + (background == 0 ? "" : String.format(" beside %,d WRR record sets over %,d probed external endpoints",
                background, 2 * background))
            + " over %d flips (probe produced -> DNS answer changed, exactly_once_v2, commit " + System.getProperty("bench.commit.ms", "100") + " ms):"
            + " p50 %d ms, p99 %d ms, max %d ms (target p99 <= 250 ms)%n", FLIPS, millis.get(FLIPS / 2),
            millis.get((int) Math.ceil(FLIPS * 0.99) - 1), millis.get(FLIPS - 1));
      }
    }
  }

  private static long flip(KafkaProducer<String, ProbeResult> probes, boolean up, SimpleResolver resolver, Duration timeout)
      throws Exception {
    String wanted = up ? LB_ADDRESS : STANDBY;
    Instant now = Instant.now();
    long t0 = System.nanoTime();
    boolean external = target.equals("external");
    probes.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, now.toEpochMilli(), external ? LB_ADDRESS : "svc",
        ProbeResult.newBuilder().setBackendService(external ? null : "svc").setEndpointId(external ? LB_ADDRESS : "vm-1")
            .setSuccess(up).setEventTime(now).build()));
    long deadline = t0 + timeout.toNanos();
    Message query = Message.newQuery(Record.newRecord(Name.fromConstantString("api.bench.example."), Type.A, DClass.IN));
    while (System.nanoTime() < deadline) {
      List<Record> answer = resolver.send(query).getSection(Section.ANSWER).stream()
          .filter(r -> r.getType() == Type.A).toList(); // with DO, RRSIGs follow
      if (!answer.isEmpty() && answer.get(0).rdataToString().equals(wanted)) {
        return (System.nanoTime() - t0) / 1_000_000;
      }
      Thread.sleep(1);
    }
    throw new IllegalStateException("DNS did not show " + wanted + " within " + timeout);
  }

  private static void configure(EmbeddedKafka kafka, SchemaRegistryClient client) throws Exception {
    send(kafka, client, Topics.BACKEND_SERVICES, "svc", BackendService.newBuilder().setName("svc").setRegion("us-east1")
        .setLoadBalancingScheme(LoadBalancingScheme.INTERNAL_MANAGED).setBackendType(BackendType.GCE_VM_IP_PORT)
        .setHealthCheck(HealthCheckSpec.newBuilder().setCheckIntervalSec(1).setHealthyThreshold(1).setUnhealthyThreshold(1)
            .setStaleAfterIntervals(3600).build())
        .setEndpoints(List.of(Endpoint.newBuilder().setId("vm-1").setIpAddress("10.1.0.11").build())).build());
    send(kafka, client, Topics.FORWARDING_RULES, "fr", ForwardingRule.newBuilder().setName("fr").setRegion("us-east1")
        .setIpAddress(LB_ADDRESS).setBackendService("svc").setLoadBalancerType(LoadBalancerType.regionalL7ilb).build());
    send(kafka, client, Topics.MANAGED_ZONES, "bench", ManagedZone.newBuilder().setName("bench")
        .setDnsName("bench.example.").setNetworks(List.of("127.0.0.0/8")).setDnssecEnabled(dnssec)
        .setDnssecAnySubset(dnssec).build());
    send(kafka, client, Topics.RESOURCE_RECORD_SETS, "bench/api.bench.example./A", ResourceRecordSet.newBuilder().setZone("bench")
        .setName("api.bench.example.").setType("A").setTtl(1).setRoutingPolicy(RoutingPolicy.newBuilder()
            .setHealthCheck(HealthCheckSpec.newBuilder().setCheckIntervalSec(1).setHealthyThreshold(1)
                .setUnhealthyThreshold(1).setStaleAfterIntervals(3600).build())
            .setWrr(WrrPolicy.newBuilder().setItems(List.of(
                WrrItem.newBuilder().setWeight(100).setRrdatas(List.of(LB_ADDRESS)).setHealthCheckedTargets(
                    target.equals("external")
                        ? HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(LB_ADDRESS)).build()
                        : HealthCheckedTargets.newBuilder().setInternalLoadBalancers(List.of(
                            LoadBalancerTarget.newBuilder().setForwardingRule("fr").build())).build()).build(),
                WrrItem.newBuilder().setWeight(0).setRrdatas(List.of(STANDBY)).build())).build()).build()).build());
  }

  /** N record sets over 2N external endpoints, each probed HEALTHY once, so the topology and the edge hold them all. */
  private static void configureBackground(EmbeddedKafka kafka, SchemaRegistryClient client, EdgeApp edge)
      throws Exception {
    if (background == 0) {
      return;
    }
    Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 262_144);
    HealthCheckSpec check = HealthCheckSpec.newBuilder().setCheckIntervalSec(1).setHealthyThreshold(1)
        .setUnhealthyThreshold(1).setStaleAfterIntervals(3600).build();
    try (KafkaProducer<String, ResourceRecordSet> sets = new KafkaProducer<>(props,
        Topics.RESOURCE_RECORD_SETS.keySerde(client).serializer(), Topics.RESOURCE_RECORD_SETS.valueSerde(client).serializer())) {
      for (int i = 0; i < background; i++) {
        String name = "r" + i + ".bench.example.";
        sets.send(new ProducerRecord<>(Topics.RESOURCE_RECORD_SETS.name(), "bench/" + name + "/A", ResourceRecordSet.newBuilder()
            .setZone("bench").setName(name).setType("A").setTtl(30).setRoutingPolicy(RoutingPolicy.newBuilder()
                .setHealthCheck(check).setWrr(WrrPolicy.newBuilder().setItems(List.of(
                    external(EdgeScaleBenchmark.primary(i), 100), external(EdgeScaleBenchmark.standby(i), 0))).build())
                .build()).build()));
      }
    }
    // As an operator would: the configuration is applied and served before its endpoints are probed
    // (the topology learns external endpoints from the record sets, through a repartition topic).
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (edge.snapshot().recordSets() < background + 1 || edge.lagRecords() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the background record sets were not served within 5 minutes");
      }
      Thread.sleep(100);
    }
    Thread.sleep(10_000);
    try (KafkaProducer<String, ProbeResult> probes = new KafkaProducer<>(props,
        Topics.PROBE_RESULTS.keySerde(client).serializer(), Topics.PROBE_RESULTS.valueSerde(client).serializer())) {
      Instant now = Instant.now();
      for (int i = 0; i < 2 * background; i++) {
        String address = i % 2 == 0 ? EdgeScaleBenchmark.primary(i / 2) : EdgeScaleBenchmark.standby(i / 2);
        probes.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, now.toEpochMilli(), address,
            ProbeResult.newBuilder().setEndpointId(address).setSuccess(true).setEventTime(now).build()));
      }
    }
  }

  private static WrrItem external(String address, int weight) {
    return WrrItem.newBuilder().setWeight(weight).setRrdatas(List.of(address)).setHealthCheckedTargets(
        HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(address)).build()).build();
  }

  /**
   * Until the topology has judged the background endpoints and the edge serves them HEALTHY
   * (sampled, with the last ones probed): flips timed while the topology still works through the
   * background's 200,000 probes would measure its backlog, not its latency at that size.
   */
  private static void awaitBackground(EmbeddedKafka kafka, SchemaRegistryClient client, EdgeApp edge) throws Exception {
    if (background == 0) {
      return;
    }
    long t0 = System.nanoTime();
    long deadline = t0 + Duration.ofMinutes(5).toNanos();
    java.util.Random random = new java.util.Random(3);
    List<Integer> sample = new ArrayList<>(List.of(background - 1, background - 2));
    for (int k = 0; k < 50; k++) {
      sample.add(random.nextInt(background));
    }
    while (!sample.stream().allMatch(i -> healthy(edge, i)) || edge.lagRecords() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the background endpoints were not served HEALTHY within 5 minutes");
      }
      Thread.sleep(200);
    }
    System.out.printf("%nbackground of %,d record sets served with their endpoints HEALTHY %.1f s after the edge was"
        + " ready%n", background, (System.nanoTime() - t0) / 1e9);
  }

  private static boolean healthy(EdgeApp edge, int i) {
    io.healthmesh.edge.state.Zone zone = edge.snapshot().zoneFor(Name.fromConstantString("bench.example."));
    var types = zone == null ? null : zone.types(Name.fromConstantString("r" + i + ".bench.example."));
    if (types == null || !(types.get(Type.A).plan() instanceof io.healthmesh.edge.routing.Plan.Wrr wrr)) {
      return false;
    }
    return wrr.items().stream().flatMap(b -> b.addresses().stream())
        .allMatch(a -> a.status() == io.healthmesh.events.HealthStatus.HEALTHY);
  }

  private static <V extends SpecificRecord> void send(EmbeddedKafka kafka, SchemaRegistryClient client,
      Topic<String, V> topic, String key, V value) throws Exception {
    try (KafkaProducer<String, V> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        kafka.bootstrapServers()), topic.keySerde(client).serializer(), topic.valueSerde(client).serializer())) {
      producer.send(new ProducerRecord<>(topic.name(), key, value)).get();
    }
  }
}
