package io.healthmesh.bench;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.Endpoint;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.LoadBalancingScheme;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.kafka.embedded.TestCa;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.HealthStreamsApp;
import io.healthmesh.streams.StreamsSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;

/**
 * Throughput of the health topology against the anchor from NOTES.md, in one run on one broker:
 * the same probe records through a plain {@code groupByKey().aggregate()} and through the
 * topology, both at exactly_once_v2. Steady-state traffic: after the first two rounds bring every
 * endpoint up, almost every probe changes nothing.
 */
public final class TopologyBenchmark {
  private static final int PROBES = Integer.getInteger("bench.probes", 4_000_000);
  private static final int SERVICES = Integer.getInteger("bench.services", 10_000);
  private static final int ENDPOINTS_PER_SERVICE = Integer.getInteger("bench.endpoints", 10);
  private static final int PARTITIONS = Integer.getInteger("bench.partitions", 4);
  /** R-OP-3 on every service: a 5 s dwell time and flap damping, to measure what they cost. */
  private static final boolean DAMPING = Boolean.getBoolean("bench.damping");
  /**
   * A health source on every backend service and a composite over each ten of them (R-CH-1,
   * R-CH-4), so that every service transition is followed through the aggregate stage's tables.
   */
  private static final boolean COMPOSITES = Boolean.getBoolean("bench.composites");
  /**
   * Probers per endpoint (R-PQ-1); more than 1 runs {@link #compareProbers} instead: each prober
   * checks every endpoint each round, the last one cut off from one endpoint in a hundred (its
   * checks fail while the others' succeed), so the quorum decides.
   */
  private static final int PROBERS = Integer.getInteger("bench.probers", 1);
  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

  private static final int WARM_ROUNDS = 2;
  /** Offset of each probe partition's first record after the warming rounds. */
  private static Map<TopicPartition, Long> steadyFrom = Map.of();

  private TopologyBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("healthmesh-bench");
    if (PROBERS > 1) {
      compareProbers(dir);
      return;
    }
    TestCa tls = SecuredClients.SECURED ? TestCa.make(dir) : null;
    EmbeddedKafka.Builder broker = EmbeddedKafka.builder().partitions(PARTITIONS).dataDir(dir.resolve("kafka"));
    try (EmbeddedKafka kafka = (tls == null ? broker : broker.secured(tls)).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      System.out.printf("topology benchmark: %,d probe results, %,d endpoints in %,d backend services, %d partitions%n",
          PROBES, SERVICES * ENDPOINTS_PER_SERVICE, SERVICES, PARTITIONS);
      produceConfiguration(kafka, client, SERVICES, ENDPOINTS_PER_SERVICE);
      if (COMPOSITES) {
        produceComposites(kafka, client, SERVICES);
      }
      int endpoints = SERVICES * ENDPOINTS_PER_SERVICE;
      // Rounds 0 and 1 bring every endpoint from nothing to HEALTHY; after them one probe in a
      // thousand fails, so almost every probe changes nothing.
      steadyFrom = produceProbes(kafka, client, PROBES, endpoints, ENDPOINTS_PER_SERVICE,
          (round, endpoint, random) -> round < 2 || random.nextInt(1000) != 0, WARM_ROUNDS * endpoints, 1);

      // A first pass of each, under other application ids, lets the JIT compile both before they
      // are measured: on two cores the compiler threads would otherwise take a core from the
      // larger topology for most of its run.
      System.out.println("warm-up:");
      run("  anchor", kafka, "bench-anchor-warmup", () -> anchor(kafka, dir, "bench-anchor-warmup"));
      run("  topology", kafka, "bench-topology-warmup", () -> topology(kafka, registry, dir, "bench-topology-warmup", 1));
      if (tls != null) {
        run("  topology over SASL_SSL", kafka, "bench-topology-sasl-warmup",
            () -> securedTopology(kafka, tls, registry, dir, "bench-topology-sasl-warmup"));
      }
      System.out.println("measured:");
      Result anchor = run("anchor groupByKey().aggregate()", kafka, "bench-anchor", () -> anchor(kafka, dir, "bench-anchor"));
      Result topology = run("healthmesh topology, 1 thread", kafka, "bench-topology",
          () -> topology(kafka, registry, dir, "bench-topology", 1));
      if (tls != null) {
        // TLS, SCRAM and the authorizer on every request of the topology's clients; the broker's
        // side of TLS is in the same process, so its CPU is counted too.
        Result secured = run("healthmesh topology over SASL_SSL, 1 thread", kafka, "bench-topology-sasl",
            () -> securedTopology(kafka, tls, registry, dir, "bench-topology-sasl"));
        Result again = run("healthmesh topology, 1 thread, again", kafka, "bench-topology-again",
            () -> topology(kafka, registry, dir, "bench-topology-again", 1));
        double plaintext = (topology.steady() + again.steady()) / 2;
        System.out.printf("%nratio topology over SASL_SSL / plaintext (the mean of the runs before and after it):"
            + " steady phase %.2f, whole run %.2f%n", secured.steady() / plaintext,
            secured.whole() / ((topology.whole() + again.whole()) / 2));
        return;
      }
      // What one instance does with both cores; the anchor, a plain Kafka Streams app, keeps its default.
      Result twoThreads = run("healthmesh topology, 2 threads", kafka, "bench-topology-2",
          () -> topology(kafka, registry, dir, "bench-topology-2", 2));

      System.out.printf("%nratio topology/anchor, one stream thread each: steady phase %.2f (target >= 0.8), whole run %.2f%n",
          topology.steady() / anchor.steady(), topology.whole() / anchor.whole());
      System.out.printf("ratio with num.stream.threads=2 against the anchor's default 1: steady phase %.2f, whole run %.2f%n",
          twoThreads.steady() / anchor.steady(), twoThreads.whole() / anchor.whole());
      System.out.printf("topology: %,.0f probe results/s in the steady phase, %,.0f/s over the whole run (target >= 100,000)%n",
          topology.steady(), topology.whole());
    }
  }

  /**
   * R-PQ-1's cost: the same number of results, from one prober per endpoint on one broker and
   * from {@link #PROBERS} on another, both in this JVM, each topology run twice in turns, so that
   * the machine's drift falls on both. (The anchor is no reference here: its cache absorbs a
   * key's results that arrive together, so it speeds up with more probers.)
   */
  private static void compareProbers(Path dir) throws Exception {
    try (EmbeddedKafka one = EmbeddedKafka.builder().partitions(PARTITIONS).dataDir(dir.resolve("kafka-1")).start();
        SchemaRegistry registryOne = SchemaRegistry.start(RegistrySettings.forTests(one.bootstrapServers()));
        EmbeddedKafka many = EmbeddedKafka.builder().partitions(PARTITIONS).dataDir(dir.resolve("kafka-n")).start();
        SchemaRegistry registryMany = SchemaRegistry.start(RegistrySettings.forTests(many.bootstrapServers()))) {
      int endpoints = SERVICES * ENDPOINTS_PER_SERVICE;
      System.out.printf("topology benchmark, probers: %,d probe results, %,d endpoints in %,d backend services, %d"
          + " partitions; 1 prober per endpoint against %d (the last cut off from 1 endpoint in 100)%n",
          PROBES, endpoints, SERVICES, PARTITIONS, PROBERS);
      Outcome steady = (round, endpoint, random) -> round < 2 || random.nextInt(1000) != 0;
      Map<TopicPartition, Long> marksOne;
      Map<TopicPartition, Long> marksMany;
      SchemaRegistryClient clientOne = new RestSchemaRegistryClient(registryOne.url());
      SchemaRegistryClient clientMany = new RestSchemaRegistryClient(registryMany.url());
      produceConfiguration(one, clientOne, SERVICES, ENDPOINTS_PER_SERVICE);
      produceConfiguration(many, clientMany, SERVICES, ENDPOINTS_PER_SERVICE);
      marksOne = produceProbes(one, clientOne, PROBES, endpoints, ENDPOINTS_PER_SERVICE, steady, WARM_ROUNDS * endpoints, 1);
      marksMany = produceProbes(many, clientMany, PROBES, endpoints, ENDPOINTS_PER_SERVICE, steady,
          WARM_ROUNDS * endpoints * PROBERS, PROBERS);
      System.out.println("warm-up:");
      steadyFrom = marksOne;
      run("  1 prober", one, "bench-one-warmup", () -> topology(one, registryOne, dir, "bench-one-warmup", 1));
      steadyFrom = marksMany;
      run("  " + PROBERS + " probers", many, "bench-many-warmup",
          () -> topology(many, registryMany, dir, "bench-many-warmup", 1));
      System.out.println("measured, in turns:");
      double[] oneSteady = new double[2];
      double[] manySteady = new double[2];
      double[] oneWhole = new double[2];
      double[] manyWhole = new double[2];
      for (int i = 0; i < 2; i++) {
        steadyFrom = marksOne;
        String appOne = "bench-one-" + i;
        Result r1 = run("healthmesh topology, 1 prober", one, appOne, () -> topology(one, registryOne, dir, appOne, 1));
        steadyFrom = marksMany;
        String appMany = "bench-many-" + i;
        Result rN = run("healthmesh topology, " + PROBERS + " probers", many, appMany,
            () -> topology(many, registryMany, dir, appMany, 1));
        oneSteady[i] = r1.steady();
        manySteady[i] = rN.steady();
        oneWhole[i] = r1.whole();
        manyWhole[i] = rN.whole();
      }
      System.out.printf("%nratio %d probers / 1 prober per probe result, one stream thread: steady phase %.2f"
          + " (target >= 0.9), whole run %.2f%n", PROBERS, (manySteady[0] + manySteady[1]) / (oneSteady[0] + oneSteady[1]),
          (manyWhole[0] + manyWhole[1]) / (oneWhole[0] + oneWhole[1]));
    }
  }

  /** Records/s over the whole run and over its steady phase, both from the first committed progress. */
  record Result(double whole, double steady) {}

  interface Starter {
    AutoCloseable start() throws Exception;
  }

  private static Result run(String name, EmbeddedKafka kafka, String appId, Starter starter) throws Exception {
    System.gc();
    ProcessStats.resetPeakRss();
    long cpu0 = ProcessStats.cpuNanos();
    Map<String, Long> threads0 = ProcessStats.threadCpu();
    long t0 = System.nanoTime();
    try (AutoCloseable app = starter.start()) {
      Progress[] marks = awaitCaughtUp(kafka, appId, Duration.ofMinutes(20));
      long t1 = System.nanoTime();
      double seconds = (t1 - t0) / 1e9;
      double cpu = (ProcessStats.cpuNanos() - cpu0) / 1e9;
      // Timed from the first committed progress, so that neither side is charged for its
      // start-up (group join, topic and store creation), which is not throughput.
      double whole = (PROBES - marks[0].probes()) / ((t1 - marks[0].nanos()) / 1e9);
      double steady = (PROBES - marks[1].probes()) / ((t1 - marks[1].nanos()) / 1e9);
      System.out.printf("%-34s %,10.0f records/s steady phase, %,10.0f/s whole run (%.1f s with start-up)  "
          + "%6.2f CPU-s per million (broker included)  peak RSS %,d MB%n",
          name, steady, whole, seconds, cpu / (PROBES / 1e6), ProcessStats.peakRssBytes() >> 20);
      System.out.println("  busiest threads: " + ProcessStats.topThreads(threads0, ProcessStats.threadCpu(), 6));
      return new Result(whole, steady);
    }
  }

  private static AutoCloseable anchor(EmbeddedKafka kafka, Path dir, String appId) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(Topics.PROBE_RESULTS.name(), Consumed.with(Serdes.String(), Serdes.ByteArray()))
        .groupByKey()
        .aggregate(() -> 0L, (key, value, count) -> count + 1, Materialized.with(Serdes.String(), Serdes.Long()));
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve(appId + "-state").toString());
    KafkaStreams streams = new KafkaStreams(builder.build(), p);
    streams.start();
    return () -> streams.close(Duration.ofSeconds(30));
  }

  private static AutoCloseable topology(EmbeddedKafka kafka, SchemaRegistry registry, Path dir, String appId,
      int threads) {
    return topology(kafka.bootstrapServers(), Map.of(), registry, dir, appId, threads);
  }

  /** The topology as a principal with exactly its ACLs, on the SASL_SSL listener. */
  private static AutoCloseable securedTopology(EmbeddedKafka kafka, TestCa tls, SchemaRegistry registry, Path dir,
      String appId) throws Exception {
    Map<String, Object> client = SecuredClients.grant(kafka, tls, appId, HealthStreamsApp.kafkaAccess(appId));
    return topology(kafka.securedBootstrapServers(), client, registry, dir, appId, 1);
  }

  private static AutoCloseable topology(String bootstrap, Map<String, Object> client, SchemaRegistry registry, Path dir,
      String appId, int threads) {
    Properties p = new Properties();
    client.forEach((k, v) -> p.setProperty(StreamsSettings.STREAMS_PREFIX + k, v.toString()));
    p.setProperty(StreamsSettings.APPLICATION_ID, appId);
    p.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, bootstrap);
    p.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, registry.url());
    p.setProperty(StreamsSettings.STATE_DIR, dir.resolve(appId + "-state").toString());
    p.setProperty(StreamsSettings.STREAM_THREADS, String.valueOf(threads));
    Benchmarks.addStreamsSettings(p);
    StreamsSettings settings = StreamsSettings.from(p);
    return HealthStreamsApp.start(settings, new RestSchemaRegistryClient(registry.url()), new SimpleMeterRegistry(),
        Duration.ofMinutes(2));
  }

  /** When the application had committed this many probes. */
  record Progress(long nanos, long probes) {}

  /**
   * Done when the application's committed offsets reach the end of every partition it reads;
   * returns its first progress and when it passed the warming rounds on every partition.
   */
  private static Progress[] awaitCaughtUp(EmbeddedKafka kafka, String appId, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = kafka.admin()) {
      Progress first = null;
      Progress steady = null;
      while (System.nanoTime() < deadline) {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin.listConsumerGroupOffsets(appId).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        boolean readsProbes = committed.keySet().stream().anyMatch(tp -> tp.topic().equals(Topics.PROBE_RESULTS.name()));
        if (readsProbes) {
          Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
          committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
          var ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
          boolean done = committed.entrySet().stream()
              .allMatch(e -> e.getValue().offset() >= ends.get(e.getKey()).offset() - 1);
          long probesDone = committed.entrySet().stream().filter(e -> e.getKey().topic().equals(Topics.PROBE_RESULTS.name()))
              .mapToLong(e -> e.getValue().offset()).sum();
          if (first == null && probesDone > 0) {
            first = new Progress(System.nanoTime(), probesDone);
          }
          boolean warmed = steadyFrom.entrySet().stream()
              .allMatch(e -> committed.containsKey(e.getKey()) && committed.get(e.getKey()).offset() >= e.getValue());
          if (steady == null && warmed) {
            steady = new Progress(System.nanoTime(), probesDone);
          }
          if (done && probesDone >= PROBES) {
            return new Progress[] {first, steady};
          }
        }
        Thread.sleep(100);
      }
    }
    throw new IllegalStateException(appId + " did not catch up within " + timeout);
  }

  private static HealthCheckSpec healthCheck() {
    HealthCheckSpec.Builder hc = HealthCheckSpec.newBuilder().setCheckIntervalSec(5);
    return DAMPING ? hc.setMinDwellSec(5).setFlapDamping(io.healthmesh.config.FlapDamping.newBuilder().build()).build()
        : hc.build();
  }

  static void produceConfiguration(EmbeddedKafka kafka, SchemaRegistryClient client, int services, int perService)
      throws Exception {
    try (KafkaProducer<String, BackendService> producer = new KafkaProducer<>(producerProps(kafka),
        Topics.BACKEND_SERVICES.keySerde(client).serializer(), Topics.BACKEND_SERVICES.valueSerde(client).serializer())) {
      for (int s = 0; s < services; s++) {
        List<Endpoint> endpoints = new ArrayList<>();
        for (int e = 0; e < perService; e++) {
          endpoints.add(Endpoint.newBuilder().setId("vm-" + e).setIpAddress("10." + (s >> 8) + "." + (s & 255) + "." + e).build());
        }
        BackendService service = BackendService.newBuilder().setName(service(s)).setRegion("us-east1")
            .setLoadBalancingScheme(LoadBalancingScheme.INTERNAL_MANAGED).setBackendType(BackendType.GCE_VM_IP_PORT)
            .setHealthCheck(healthCheck()).setEndpoints(endpoints).build();
        producer.send(new ProducerRecord<>(Topics.BACKEND_SERVICES.name(), null, T0.minusSeconds(60).toEpochMilli(),
            service.getName(), service));
      }
    }
  }

  private static void produceComposites(EmbeddedKafka kafka, SchemaRegistryClient client, int services) throws Exception {
    long at = T0.minusSeconds(60).toEpochMilli();
    send(kafka, client, Topics.HEALTH_AGGREGATION_POLICIES, at, List.of(io.healthmesh.config.HealthAggregationPolicy
        .newBuilder().setName("bench-policy").setRegion("us-east1").setHealthyPercentThreshold(60).build()),
        io.healthmesh.config.HealthAggregationPolicy::getName);
    List<io.healthmesh.config.HealthSource> sources = new ArrayList<>();
    List<io.healthmesh.config.CompositeHealthCheck> composites = new ArrayList<>();
    for (int s = 0; s < services; s++) {
      sources.add(io.healthmesh.config.HealthSource.newBuilder().setName("src-" + service(s)).setRegion("us-east1")
          .setBackendService(service(s)).setHealthAggregationPolicy("bench-policy").build());
    }
    for (int c = 0; c * 10 < services; c++) {
      List<String> members = new ArrayList<>();
      for (int s = c * 10; s < Math.min(services, c * 10 + 10); s++) {
        members.add("src-" + service(s));
      }
      composites.add(io.healthmesh.config.CompositeHealthCheck.newBuilder().setName(String.format("chc-%04d", c))
          .setRegion("us-east1").setHealthSources(members).setHealthDestination(String.format("fr-%04d", c)).build());
    }
    send(kafka, client, Topics.HEALTH_SOURCES, at, sources, io.healthmesh.config.HealthSource::getName);
    send(kafka, client, Topics.COMPOSITE_HEALTH_CHECKS, at, composites, io.healthmesh.config.CompositeHealthCheck::getName);
    System.out.printf("with %,d health sources and %,d composite health checks%n", sources.size(), composites.size());
  }

  private static <V extends org.apache.avro.specific.SpecificRecord> void send(EmbeddedKafka kafka,
      SchemaRegistryClient client, io.healthmesh.schemas.Topic<String, V> topic, long at, List<V> values,
      java.util.function.Function<V, String> key) {
    try (KafkaProducer<String, V> producer = new KafkaProducer<>(producerProps(kafka),
        topic.keySerde(client).serializer(), topic.valueSerde(client).serializer())) {
      values.forEach(v -> producer.send(new ProducerRecord<>(topic.name(), null, at, key.apply(v), v)));
    }
  }

  /** Whether a probe of {@code endpoint} in check round {@code round} succeeds. */
  interface Outcome {
    boolean success(int round, int endpoint, Random random);
  }

  /**
   * Produces {@code probes} results, round after round over every endpoint; returns the offset in
   * each partition of the {@code mark}-th result.
   */
  static Map<TopicPartition, Long> produceProbes(EmbeddedKafka kafka, SchemaRegistryClient client, int probes,
      int endpoints, int perService, Outcome outcome, int mark, int probers) throws Exception {
    Map<TopicPartition, Long> marks = new HashMap<>();
    Random random = new Random(1);
    long t0 = System.nanoTime();
    try (KafkaProducer<String, ProbeResult> producer = new KafkaProducer<>(producerProps(kafka),
        Topics.PROBE_RESULTS.keySerde(client).serializer(), Topics.PROBE_RESULTS.valueSerde(client).serializer())) {
      for (int i = 0; i < probes; i++) {
        if (i == mark) {
          producer.flush();
          try (Admin admin = kafka.admin()) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
              latest.put(new TopicPartition(Topics.PROBE_RESULTS.name(), p), OffsetSpec.latest());
            }
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((tp, r) -> marks.put(tp, r.offset()));
          }
        }
        int perRound = endpoints * probers;
        int round = i / perRound;
        int slot = i % perRound;
        int endpoint = slot / probers;
        int prober = slot % probers;
        // Each round is one 5 s check interval; results of a round are spread over it.
        Instant at = T0.plusMillis(round * 5_000L + (slot * 5_000L) / perRound);
        boolean cutOff = probers > 1 && prober == probers - 1 && endpoint % 100 == 0;
        boolean success = outcome.success(round, endpoint, random) && !cutOff;
        ProbeResult probe = ProbeResult.newBuilder().setBackendService(service(endpoint / perService))
            .setEndpointId("vm-" + endpoint % perService).setSuccess(success).setEventTime(at)
            .setProber(probers == 1 ? "bench" : "region-" + prober + "/bench").setLatencyMicros(900).build();
        producer.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, at.toEpochMilli(),
            probe.getBackendService(), probe));
      }
    }
    System.out.printf("produced %,d probe results in %.1f s%n", probes, (System.nanoTime() - t0) / 1e9);
    return marks;
  }

  private static Map<String, Object> producerProps(EmbeddedKafka kafka) {
    return Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 262_144,
        ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
  }

  private static String service(int s) {
    return String.format("svc-%05d", s);
  }
}
