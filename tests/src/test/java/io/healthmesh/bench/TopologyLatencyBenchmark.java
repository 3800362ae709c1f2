package io.healthmesh.bench;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.Endpoint;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.LoadBalancingScheme;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
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
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The topology's share of propagation at scale: from producing a probe result to the committed
 * health-state record that reflects it, with 1,000,000 endpoints in 100,000 backend services all
 * HEALTHY and a steady background of probes that change nothing, as a fleet probing them would
 * send. Endpoint flips are judged in the per-service stage; service flips (half of a service's
 * endpoints at once, below the default 60 % threshold, R-AGG-2) also cross the aggregate stage.
 */
public final class TopologyLatencyBenchmark {
  private static final int SERVICES = Integer.getInteger("bench.latency.services", 100_000);
  private static final int PER_SERVICE = 10;
  private static final int FLIPS = Integer.getInteger("bench.flips", 100);
  private static final int BACKGROUND_RATE = Integer.getInteger("bench.background.rate", 5_000);
  private static final int PARTITIONS = Integer.getInteger("bench.partitions", 4);
  /** The topology in its own JVM (the default, as it is deployed) or in the benchmark's, beside the broker. */
  private static final boolean OWN_PROCESS = !Boolean.getBoolean("bench.topology.in.process");
  /** JVM flags of the topology's process: none, as {@code healthctl topology} starts it. */
  private static final String TOPOLOGY_JVM = System.getProperty("bench.topology.jvm", "");

  private TopologyLatencyBenchmark() {}

  public static void main(String[] args) throws Exception {
    int endpoints = SERVICES * PER_SERVICE;
    System.out.printf("%ntopology latency: %,d endpoints in %,d backend services, %d partitions, background %,d probes/s,"
        + " topology %s%n", endpoints, SERVICES, PARTITIONS, BACKGROUND_RATE,
        OWN_PROCESS ? "in its own JVM [" + TOPOLOGY_JVM + "]" : "in the broker's JVM");
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(PARTITIONS).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      configure(kafka, client);
      Properties p = new Properties();
      p.setProperty(StreamsSettings.APPLICATION_ID, "bench-topology-latency");
      p.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      p.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, registry.url());
      Path dir = Files.createTempDirectory("bench-topology-latency");
      p.setProperty(StreamsSettings.STATE_DIR, dir.resolve("state").toString());
      p.setProperty(StreamsSettings.COMMIT_INTERVAL_MS, System.getProperty("bench.commit.ms", "100"));
      Benchmarks.addStreamsSettings(p);
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      TopologyProcess process = OWN_PROCESS ? TopologyProcess.start(p, TOPOLOGY_JVM, dir) : null;
      try (AutoCloseable topology = OWN_PROCESS ? process
              : HealthStreamsApp.start(StreamsSettings.from(p), client, meters, Duration.ofMinutes(2));
          KafkaProducer<String, ProbeResult> probes = new KafkaProducer<>(Map.of(
              ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ProducerConfig.LINGER_MS_CONFIG, 5,
              ProducerConfig.BATCH_SIZE_CONFIG, 262_144),
              Topics.PROBE_RESULTS.keySerde(client).serializer(), Topics.PROBE_RESULTS.valueSerde(client).serializer());
          StateWatcher watcher = new StateWatcher(kafka, client, "read_committed");
          StateWatcher written = new StateWatcher(kafka, client, "read_uncommitted")) {
        // As an operator would: the configuration is taken in before its endpoints are probed.
        org.awaitility.Awaitility.await("the configuration read").atMost(Duration.ofMinutes(5))
            .until(() -> kafka.consumed("bench-topology-latency", Topics.BACKEND_SERVICES.name()));
        long t0 = System.nanoTime();
        // Every endpoint HEALTHY first: the last services of each partition are the last to be judged.
        List<EntityKey> sample = IntStream.of(0, SERVICES / 2, SERVICES - 1)
            .mapToObj(s -> new EntityKey(EntityKind.BACKEND_SERVICE, service(s))).toList();
        sample.forEach(key -> watcher.expect(key, HealthStatus.HEALTHY));
        for (int i = 0; i < endpoints; i++) {
          probes.send(probe(i / PER_SERVICE, i % PER_SERVICE, true));
        }
        probes.flush();
        for (EntityKey key : sample) {
          watcher.await(key, HealthStatus.HEALTHY, Duration.ofMinutes(10));
        }
        System.out.printf("all %,d endpoints probed and judged HEALTHY in %.1f s%n", endpoints, (System.nanoTime() - t0) / 1e9);

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong sent = new AtomicLong();
        Thread background = new Thread(() -> background(probes, running, sent), "background-probes");
        background.start();
        Thread.sleep(10_000); // let the background reach its rate and the topology a steady state
        Random random = new Random(7);
        List<Long> endpointMillis = new ArrayList<>();
        List<Long> endpointWritten = new ArrayList<>();
        List<Long> serviceMillis = new ArrayList<>();
        long sent0 = sent.get();
        long flips0 = System.nanoTime();
        long cpu0 = OWN_PROCESS ? process.cpuNanos() : ProcessStats.cpuNanos();
        double uptime0 = OWN_PROCESS ? process.uptimeSeconds() : 0;
        Map<String, Long> threads0 = ProcessStats.threadCpu();
        for (int i = 0; i < FLIPS; i++) {
          int s = random.nextInt(SERVICES);
          int e = random.nextInt(PER_SERVICE);
          EntityKey endpoint = new EntityKey(EntityKind.ENDPOINT, service(s) + "/vm-" + e);
          written.expect(endpoint, HealthStatus.UNHEALTHY);
          long down = System.nanoTime();
          endpointMillis.add(flip(probes, watcher, endpoint, List.of(probe(s, e, false)), HealthStatus.UNHEALTHY));
          endpointWritten.add((written.await(endpoint, HealthStatus.UNHEALTHY, Duration.ofSeconds(30)) - down) / 1_000_000);
          written.expect(endpoint, HealthStatus.HEALTHY);
          long up = System.nanoTime();
          endpointMillis.add(flip(probes, watcher, endpoint, List.of(probe(s, e, true)), HealthStatus.HEALTHY));
          endpointWritten.add((written.await(endpoint, HealthStatus.HEALTHY, Duration.ofSeconds(30)) - up) / 1_000_000);
          int t = random.nextInt(SERVICES);
          EntityKey service = new EntityKey(EntityKind.BACKEND_SERVICE, service(t));
          serviceMillis.add(flip(probes, watcher, service,
              IntStream.range(0, PER_SERVICE / 2).mapToObj(k -> probe(t, k, false)).toList(), HealthStatus.UNHEALTHY));
          serviceMillis.add(flip(probes, watcher, service,
              IntStream.range(0, PER_SERVICE / 2).mapToObj(k -> probe(t, k, true)).toList(), HealthStatus.HEALTHY));
        }
        double seconds = (System.nanoTime() - flips0) / 1e9;
        double rate = (sent.get() - sent0) / seconds;
        if (OWN_PROCESS) {
          System.out.printf("during the flips: topology process CPU %.0f %% of a core, %s; benchmark JVM's busiest threads: %s%n",
              100 * (process.cpuNanos() - cpu0) / 1e9 / seconds, process.pauses(uptime0, process.uptimeSeconds()),
              ProcessStats.topThreads(threads0, ProcessStats.threadCpu(), 4));
        } else {
          System.out.printf("during the flips: process CPU %.0f %% of a core; busiest threads: %s%n",
              100 * (ProcessStats.cpuNanos() - cpu0) / 1e9 / seconds, ProcessStats.topThreads(threads0, ProcessStats.threadCpu(), 6));
        }
        running.set(false);
        background.join();
        report("endpoint (per-service stage)", endpointMillis);
        Collections.sort(endpointWritten);
        System.out.printf("  of which until written, not yet committed: p50 %d ms, p99 %d ms%n",
            endpointWritten.get(endpointWritten.size() / 2), endpointWritten.get((int) Math.ceil(endpointWritten.size() * 0.99) - 1));
        report("backend service (aggregate stage)", serviceMillis);
        if (Boolean.getBoolean("bench.debug")) {
          meters.getMeters().stream().filter(m -> m.getId().getName().startsWith("kafka.stream.thread"))
              .forEach(m -> System.out.println(m.getId().getName() + " " + m.measure()));
        }
        System.out.printf("background during the flips: %,.0f probe results/s; peak RSS %,d MB%s%n", rate,
            ProcessStats.peakRssBytes() >> 20, OWN_PROCESS ? " (benchmark JVM), " + (process.peakRssBytes() >> 20) + " MB (topology)" : "");
      }
    }
  }

  private static long flip(KafkaProducer<String, ProbeResult> probes, StateWatcher watcher, EntityKey key,
      List<ProducerRecord<String, ProbeResult>> records, HealthStatus wanted) throws Exception {
    watcher.expect(key, wanted);
    long t0 = System.nanoTime();
    records.forEach(probes::send);
    probes.flush();
    return (watcher.await(key, wanted, Duration.ofSeconds(30)) - t0) / 1_000_000;
  }

  private static void report(String what, List<Long> millis) {
    Collections.sort(millis);
    int n = millis.size();
    System.out.printf("probe produced -> committed health-state, %s, %d flips: p50 %d ms, p99 %d ms, max %d ms"
        + " (target p99 <= 100 ms)%n", what, n, millis.get(n / 2), millis.get((int) Math.ceil(n * 0.99) - 1), millis.get(n - 1));
  }

  /** Successful probes of random endpoints at a steady rate: an endpoint already HEALTHY stays so. */
  private static void background(KafkaProducer<String, ProbeResult> probes, AtomicBoolean running, AtomicLong sent) {
    Random random = new Random(11);
    long start = System.nanoTime();
    while (running.get()) {
      long due = (System.nanoTime() - start) * BACKGROUND_RATE / 1_000_000_000L;
      for (; sent.get() < due; sent.incrementAndGet()) {
        probes.send(probe(random.nextInt(SERVICES), random.nextInt(PER_SERVICE), true));
      }
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static ProducerRecord<String, ProbeResult> probe(int service, int endpoint, boolean success) {
    Instant now = Instant.now();
    return new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, now.toEpochMilli(), service(service),
        ProbeResult.newBuilder().setBackendService(service(service)).setEndpointId("vm-" + endpoint).setSuccess(success)
            .setEventTime(now).setProber("bench").setLatencyMicros(900).build());
  }

  /** Thresholds of one, so one probe flips an endpoint; staleness out of the way of a long warm-up. */
  private static void configure(EmbeddedKafka kafka, SchemaRegistryClient client) {
    HealthCheckSpec check = HealthCheckSpec.newBuilder().setCheckIntervalSec(5).setHealthyThreshold(1)
        .setUnhealthyThreshold(1).setStaleAfterIntervals(3600).build();
    try (KafkaProducer<String, BackendService> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ProducerConfig.LINGER_MS_CONFIG, 20,
        ProducerConfig.BATCH_SIZE_CONFIG, 262_144),
        Topics.BACKEND_SERVICES.keySerde(client).serializer(), Topics.BACKEND_SERVICES.valueSerde(client).serializer())) {
      for (int s = 0; s < SERVICES; s++) {
        List<Endpoint> endpoints = new ArrayList<>();
        for (int e = 0; e < PER_SERVICE; e++) {
          endpoints.add(Endpoint.newBuilder().setId("vm-" + e)
              .setIpAddress("10." + (s >> 12) + "." + ((s >> 4) & 255) + "." + ((s & 15) * 16 + e)).build());
        }
        producer.send(new ProducerRecord<>(Topics.BACKEND_SERVICES.name(), service(s), BackendService.newBuilder()
            .setName(service(s)).setRegion("us-east1").setLoadBalancingScheme(LoadBalancingScheme.INTERNAL_MANAGED)
            .setBackendType(BackendType.GCE_VM_IP_PORT).setHealthCheck(check).setEndpoints(endpoints).build()));
      }
    }
  }

  private static String service(int s) {
    return String.format("svc-%06d", s);
  }

  /**
   * Reads health-state records and notes when a watched key first shows the wanted status:
   * read_committed counts a record once its transaction committed, read_uncommitted once written.
   */
  private static final class StateWatcher implements AutoCloseable {
    private final Map<EntityKey, HealthStatus> wanted = new ConcurrentHashMap<>();
    private final Map<EntityKey, Long> seen = new ConcurrentHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    StateWatcher(EmbeddedKafka kafka, SchemaRegistryClient client, String isolation) {
      KafkaConsumer<EntityKey, HealthState> consumer = new KafkaConsumer<>(Map.of(
          ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
          ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation, ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000),
          Topics.HEALTH_STATE.keySerde(client).deserializer(), Topics.HEALTH_STATE.valueSerde(client).deserializer());
      List<TopicPartition> partitions = consumer.partitionsFor(Topics.HEALTH_STATE.name()).stream()
          .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      thread = new Thread(() -> {
        try (consumer) {
          while (running.get()) {
            for (ConsumerRecord<EntityKey, HealthState> r : consumer.poll(Duration.ofMillis(50))) {
              HealthStatus status = r.value() == null ? null : r.value().getStatus();
              if (status != null && status == wanted.get(r.key())) {
                seen.putIfAbsent(r.key(), System.nanoTime());
              }
            }
          }
        }
      }, "health-state-watcher");
      thread.start();
    }

    void expect(EntityKey key, HealthStatus status) {
      seen.remove(key);
      wanted.put(key, status);
    }

    /** When {@code key} showed {@code status}, which {@link #expect} must have named before it could. */
    long await(EntityKey key, HealthStatus status, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        Long at = seen.get(key);
        if (at != null) {
          return at;
        }
        Thread.sleep(1);
      }
      throw new IllegalStateException(key + " did not become " + status + " within " + timeout);
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      thread.join();
    }
  }
}
