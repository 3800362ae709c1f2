package io.healthmesh.streams;

import io.healthmesh.streams.endpoint.EndpointWrites;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two topology processes in one application id, with a standby copy of every task, while every
 * endpoint flips on every probe (4 per second): a stopped instance (SIGTERM) leaves the group
 * and a killed one (SIGKILL) is noticed when its session ends; the survivor takes their tasks
 * over, a new instance takes its share at the first rebalance (its copies are close enough), and every probe's
 * transition is published exactly once throughout.
 */
class TakeoverIT {
  private static final String APP = "takeover-it";
  private static final List<String> SERVICES = IntStream.range(0, 8).mapToObj(i -> "svc-" + i).toList();
  private static final long TICK_MS = 250;
  /**
   * Endpoints beside the flipping ones, probed HEALTHY once and then at a steady background rate
   * (they change nothing): 0 in the suite; {@code -Dtakeover.endpoints=100000} measures takeover
   * at a fleet's size (docs/benchmarks.md).
   */
  private static final int POPULATION = Integer.getInteger("takeover.endpoints", 0);
  private static final int BACKGROUND_RATE = Integer.getInteger("takeover.background.rate", 5_000);
  private static final int PER_SERVICE = 10;

  /** Against both ways of writing endpoint state: a task migration moves what either wrote. */
  @ParameterizedTest
  @EnumSource(EndpointWrites.class)
  void survivorsTakeOverWithinSeconds_andNoTransitionIsLostOrDoubled(EndpointWrites writes, @TempDir Path dir) throws Exception {
    // Tuned as the README ("Takeover") advises for fast takeover: sessions down to 1 s, and timed-out
    // transactions aborted within a second instead of ten.
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(4)
            .brokerProperty(BrokerLimits.MIN_SESSION, "1000").brokerProperty(BrokerLimits.ABORT_CHECK, "1000").start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      try (KafkaProducer<String, BackendService> config = producer(kafka, client, Topics.BACKEND_SERVICES)) {
        for (String s : SERVICES) {
          config.send(new ProducerRecord<>(Topics.BACKEND_SERVICES.name(), s, service(s))).get();
        }
        for (int s = 0; s < POPULATION / PER_SERVICE; s++) {
          config.send(new ProducerRecord<>(Topics.BACKEND_SERVICES.name(), populated(s), populatedService(s)));
        }
      }
      Process a = start(kafka, registry, dir, "a", writes);
      Process b = start(kafka, registry, dir, "b", writes);
      Process c = null;
      Watcher watcher = new Watcher(kafka, client);
      Prober prober = new Prober(kafka, client);
      Background background = new Background(kafka, client);
      try {
        awaitMembers(kafka, 2, Duration.ofSeconds(60));
        if (POPULATION > 0) {
          long t0 = System.nanoTime();
          background.probeAllOnce();
          await("every probe applied").atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(200))
              .until(() -> kafka.consumed(APP, Topics.PROBE_RESULTS.name()));
          System.out.printf("takeover: %,d endpoints probed and judged in %.1f s%n", POPULATION, (System.nanoTime() - t0) / 1e9);
          Thread.sleep(10_000); // standbys catch up with the changelogs
          background.start();
        }
        watcher.start();
        prober.start();
        Thread.sleep(8_000); // steady flipping

        long stopped = System.currentTimeMillis();
        a.destroy(); // SIGTERM: the shutdown hook closes and leaves the group
        assertThat(a.waitFor(60, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(10_000); // the window in which the stall is measured
        long sigterm = watcher.longestGap(stopped - 1_000, System.currentTimeMillis());

        Set<String> before = memberIds(kafka);
        long joined = System.currentTimeMillis();
        c = start(kafka, registry, dir, "c", writes);
        long share = awaitNewMemberServing(kafka, before, Duration.ofSeconds(150)) - joined;

        Thread.sleep(5_000); // the moved tasks restore, then run: the window in which the join's stall is measured
        long killed = System.currentTimeMillis();
        long join = watcher.longestGap(joined - 1_000, killed);
        b.destroyForcibly(); // SIGKILL: no goodbye, the session has to expire
        assertThat(b.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(20_000); // the window in which the stall is measured
        long sigkill = watcher.longestGap(killed - 1_000, System.currentTimeMillis());

        prober.stop();
        background.stop();
        Map<String, Integer> sent = prober.sent();
        Map<String, List<HealthTransition>> published = watcher.awaitCounts(sent, Duration.ofSeconds(60));
        watcher.stop();

        System.out.printf("takeover (" + writes.setting + "): SIGTERM stall %.1f s, new instance serving its share after %.1f s"
            + " (stall %.1f s), SIGKILL stall %.1f s; %d probes, each published once%n", sigterm / 1000.0, share / 1000.0,
            join / 1000.0, sigkill / 1000.0, sent.values().stream().mapToInt(Integer::intValue).sum());
        for (String endpoint : sent.keySet()) {
          List<HealthTransition> ts = published.getOrDefault(endpoint, List.of());
          assertThat(ts).as(endpoint + ": one transition per probe (every probe flips it)").hasSize(sent.get(endpoint));
          for (int i = 0; i < ts.size(); i++) {
            assertThat(ts.get(i).getVersion()).as(endpoint + " versions, neither lost nor doubled").isEqualTo(i + 1L);
          }
        }
        assertThat(sigterm).as("SIGTERM: the instance left the group").isLessThan(5_000);
        // The session (3 s) ends, and the dead instance's open transaction must be aborted by the
        // broker (its timeout, 3 s, checked every second) before the partitions read on: about 4 s,
        // with room here for a loaded machine.
        assertThat(sigkill).as("SIGKILL: the session and the dead transaction time out").isLessThan(10_000);
        // Its copies are within acceptable.recovery.lag, so it takes its tasks at once and restores them.
        assertThat(share).as("a new instance serves its share").isLessThan(60_000);
        assertThat(join).as("the moved tasks stall while they restore").isLessThan(10_000);
      } finally {
        prober.stop();
        background.stop();
        watcher.stop();
        for (Process p : new Process[] {a, b, c}) {
          if (p != null) {
            p.destroyForcibly();
          }
        }
      }
    }
  }

  private static Process start(EmbeddedKafka kafka, SchemaRegistry registry, Path dir, String name,
      EndpointWrites writes) throws Exception {
    // Kept under target/, not in the temporary directory: a slow takeover is explained by these logs.
    Path logs = Files.createDirectories(Path.of("target", "takeover-logs"));
    return StreamsProcess.start(kafka, registry, APP, dir.resolve("state-" + name), logs.resolve(writes.setting + "-" + name
        + ".log"),
        "num.standby.replicas=1", StreamsSettings.ENDPOINT_WRITES + "=" + writes.setting);
  }

  private static BackendService service(String name) {
    // Thresholds of 1: every probe of the other outcome flips the endpoint; stale only after 10 minutes.
    return BackendService.newBuilder(Harness.service(name, 1, 1, 1))
        .setHealthCheck(HealthCheckSpec.newBuilder().setCheckIntervalSec(1).setHealthyThreshold(1)
            .setUnhealthyThreshold(1).setStaleAfterIntervals(600).build()).build();
  }

  private static String populated(int s) {
    return String.format("pop-%05d", s);
  }

  private static BackendService populatedService(int s) {
    List<io.healthmesh.config.Endpoint> endpoints = new ArrayList<>();
    for (int e = 0; e < PER_SERVICE; e++) {
      endpoints.add(io.healthmesh.config.Endpoint.newBuilder().setId("vm-" + e)
          .setIpAddress("10." + (s >> 12) + "." + ((s >> 4) & 255) + "." + ((s & 15) * 16 + e)).build());
    }
    return BackendService.newBuilder(service(populated(s))).setEndpoints(endpoints).build();
  }

  private static <V extends org.apache.avro.specific.SpecificRecord> KafkaProducer<String, V> producer(
      EmbeddedKafka kafka, SchemaRegistryClient client, io.healthmesh.schemas.Topic<String, V> topic) {
    return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all"), topic.keySerde(client).serializer(), topic.valueSerde(client).serializer());
  }

  private static Set<String> memberIds(EmbeddedKafka kafka) throws Exception {
    Set<String> ids = new HashSet<>();
    members(kafka).forEach(m -> ids.add(m.consumerId()));
    return ids;
  }

  private static java.util.Collection<MemberDescription> members(EmbeddedKafka kafka) throws Exception {
    try (Admin admin = kafka.admin()) {
      return admin.describeConsumerGroups(List.of(APP)).all().get(10, TimeUnit.SECONDS).get(APP).members();
    }
  }

  private static void awaitMembers(EmbeddedKafka kafka, int count, Duration timeout) {
    await(count + " members with work").atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
      var members = members(kafka);
      return members.size() == count && members.stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty());
    });
  }

  /** Wall time at which a member that was not there before first holds probe partitions. */
  private static long awaitNewMemberServing(EmbeddedKafka kafka, Set<String> before, Duration timeout) {
    await("the new instance holds a probe partition").atMost(timeout).pollInterval(Duration.ofMillis(200))
        .until(() -> members(kafka).stream().anyMatch(m -> !before.contains(m.consumerId())
            && m.assignment().topicPartitions().stream().anyMatch(tp -> tp.topic().equals(Topics.PROBE_RESULTS.name()))));
    return System.currentTimeMillis();
  }

  /** Flips every endpoint on every tick. */
  private static final class Prober {
    private final KafkaProducer<String, ProbeResult> producer;
    private final Map<String, Integer> sent = new ConcurrentHashMap<>();
    private final Thread thread = new Thread(this::run, "takeover-prober");
    private volatile boolean running = true;

    Prober(EmbeddedKafka kafka, SchemaRegistryClient client) {
      this.producer = producer(kafka, client, Topics.PROBE_RESULTS);
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void run() {
      for (long tick = 0; running; tick++) {
        boolean up = tick % 2 == 0;
        for (String s : SERVICES) {
          producer.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), s, ProbeResult.newBuilder()
              .setBackendService(s).setEndpointId("vm-1").setSuccess(up).setEventTime(Instant.now())
              .setProber("takeover-it").build()));
          sent.merge(s + "/vm-1", 1, Integer::sum);
        }
        producer.flush();
        try {
          Thread.sleep(TICK_MS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    void stop() throws InterruptedException {
      running = false;
      thread.join(5_000);
      producer.close(Duration.ofSeconds(5));
    }

    Map<String, Integer> sent() {
      return Map.copyOf(sent);
    }
  }

  /** Successful probes of the population's endpoints: once each, then at a steady rate. */
  private static final class Background {
    private final KafkaProducer<String, ProbeResult> producer;
    private final Thread thread = new Thread(this::run, "takeover-background");
    private volatile boolean running = true;

    Background(EmbeddedKafka kafka, SchemaRegistryClient client) {
      this.producer = producer(kafka, client, Topics.PROBE_RESULTS);
      thread.setDaemon(true);
    }

    void probeAllOnce() {
      for (int i = 0; i < POPULATION; i++) {
        send(i / PER_SERVICE, i % PER_SERVICE);
      }
      producer.flush();
    }

    void start() {
      thread.start();
    }

    private void run() {
      java.util.Random random = new java.util.Random(3);
      long start = System.nanoTime();
      long sent = 0;
      while (running) {
        long due = (System.nanoTime() - start) * BACKGROUND_RATE / 1_000_000_000L;
        for (; sent < due; sent++) {
          int i = random.nextInt(POPULATION);
          send(i / PER_SERVICE, i % PER_SERVICE);
        }
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private void send(int service, int endpoint) {
      producer.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), populated(service), ProbeResult.newBuilder()
          .setBackendService(populated(service)).setEndpointId("vm-" + endpoint).setSuccess(true)
          .setEventTime(Instant.now()).setProber("takeover-it").build()));
    }

    void stop() throws InterruptedException {
      if (running) {
        running = false;
        thread.join(5_000);
        producer.close(Duration.ofSeconds(5));
      }
    }
  }

  /** Reads endpoint transitions as they are committed, noting when each arrived. */
  private static final class Watcher {
    private final KafkaConsumer<EntityKey, HealthTransition> consumer;
    private final Map<String, List<HealthTransition>> transitions = new ConcurrentHashMap<>();
    private final Map<String, List<Long>> arrivals = new ConcurrentHashMap<>();
    private final Thread thread = new Thread(this::run, "takeover-watcher");
    private volatile boolean running = true;

    Watcher(EmbeddedKafka kafka, SchemaRegistryClient client) {
      Map<String, Object> props = new HashMap<>();
      props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
      props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      this.consumer = new KafkaConsumer<>(props, Topics.HEALTH_TRANSITIONS.keySerde(client).deserializer(),
          Topics.HEALTH_TRANSITIONS.valueSerde(client).deserializer());
      List<TopicPartition> partitions = consumer.partitionsFor(Topics.HEALTH_TRANSITIONS.name()).stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void run() {
      while (running) {
        for (ConsumerRecord<EntityKey, HealthTransition> r : consumer.poll(Duration.ofMillis(100))) {
          if (r.key().getKind() == EntityKind.ENDPOINT && r.key().getName().startsWith("svc-")) {
            transitions.computeIfAbsent(r.key().getName(), k -> Collections.synchronizedList(new ArrayList<>()))
                .add(r.value());
            arrivals.computeIfAbsent(r.key().getName(), k -> Collections.synchronizedList(new ArrayList<>()))
                .add(System.currentTimeMillis());
          }
        }
      }
      consumer.close();
    }

    /** The longest time any endpoint went without a transition between {@code from} and {@code to}. */
    long longestGap(long from, long to) {
      long longest = 0;
      for (List<Long> times : arrivals.values()) {
        long last = from;
        synchronized (times) {
          for (long t : times) {
            if (t > from && t <= to) {
              longest = Math.max(longest, t - last);
              last = t;
            }
          }
        }
        longest = Math.max(longest, to - last);
      }
      return longest;
    }

    /** The transitions read once every endpoint has as many as probes were sent, or when {@code timeout} passed (the caller's assertions then say what is missing). */
    Map<String, List<HealthTransition>> awaitCounts(Map<String, Integer> sent, Duration timeout) {
      try {
        await().atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> sent.entrySet().stream()
            .allMatch(e -> transitions.getOrDefault(e.getKey(), List.of()).size() >= e.getValue()));
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        // compared below
      }
      Map<String, List<HealthTransition>> copy = new HashMap<>();
      transitions.forEach((k, v) -> {
        synchronized (v) {
          copy.put(k, List.copyOf(v));
        }
      });
      return copy;
    }

    void stop() throws InterruptedException {
      running = false;
      thread.join(5_000);
    }
  }
}
