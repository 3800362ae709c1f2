package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

/**
 * What the process-level ITs run against topology processes: eight services whose endpoint
 * vm-1 flips on every probe (the {@link Prober}, 4 per second), a population of endpoints probed
 * HEALTHY in the background (they change nothing), and a {@link Watcher} of the transitions.
 */
final class Fleet {
  static final List<String> SERVICES = IntStream.range(0, 8).mapToObj(i -> "svc-" + i).toList();
  static final long TICK_MS = 250;
  static final int PER_SERVICE = 10;
  private final EmbeddedKafka kafka;
  private final SchemaRegistryClient client;
  private final int population;
  private final int backgroundRate;

  Fleet(EmbeddedKafka kafka, SchemaRegistryClient client, int population, int backgroundRate) {
    this.kafka = kafka;
    this.client = client;
    this.population = population;
    this.backgroundRate = backgroundRate;
  }

  /** Writes the flipping services and the population's. */
  void configure() throws Exception {
    try (KafkaProducer<String, BackendService> config = producer(kafka, client, Topics.BACKEND_SERVICES)) {
      for (String s : SERVICES) {
        config.send(new ProducerRecord<>(Topics.BACKEND_SERVICES.name(), s, service(s))).get();
      }
      for (int s = 0; s < population / PER_SERVICE; s++) {
        config.send(new ProducerRecord<>(Topics.BACKEND_SERVICES.name(), populated(s), populatedService(s)));
      }
    }
  }

  /** What the prober sent and the watcher read, once every probe's transition was read or a minute passed. */
  record Outcome(Map<String, Integer> sent, Map<String, List<HealthTransition>> published) {
    int probes() {
      return sent.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Every probe flips its endpoint: one transition each, versions 1, 2, 3, ... none lost or doubled. */
    void assertEachProbePublishedOnce() {
      for (String endpoint : sent.keySet()) {
        List<HealthTransition> ts = published.getOrDefault(endpoint, List.of());
        assertThat(ts).as(endpoint + ": one transition per probe (every probe flips it)").hasSize(sent.get(endpoint));
        for (int i = 0; i < ts.size(); i++) {
          assertThat(ts.get(i).getVersion()).as(endpoint + " versions, neither lost nor doubled").isEqualTo(i + 1L);
        }
      }
    }
  }

  /** Stops probing and waits for the transitions of what was sent. */
  static Outcome finish(Prober prober, Background background, Watcher watcher) throws InterruptedException {
    prober.stop();
    background.stop();
    Map<String, Integer> sent = prober.sent();
    Map<String, List<HealthTransition>> published = watcher.awaitCounts(sent, Duration.ofSeconds(60));
    watcher.stop();
    return new Outcome(sent, published);
  }

  int population() {
    return population;
  }

  Prober prober() {
    return new Prober(kafka, client);
  }

  Background background() {
    return new Background();
  }

  Watcher watcher() {
    return new Watcher(kafka, client);
  }

  static BackendService service(String name) {
    // Thresholds of 1: every probe of the other outcome flips the endpoint; stale only after 10 minutes.
    return BackendService.newBuilder(Harness.service(name, 1, 1, 1))
        .setHealthCheck(HealthCheckSpec.newBuilder().setCheckIntervalSec(1).setHealthyThreshold(1)
            .setUnhealthyThreshold(1).setStaleAfterIntervals(600).build()).build();
  }

  static String populated(int s) {
    return String.format("pop-%05d", s);
  }

  static BackendService populatedService(int s) {
    List<io.healthmesh.config.Endpoint> endpoints = new ArrayList<>();
    for (int e = 0; e < PER_SERVICE; e++) {
      endpoints.add(io.healthmesh.config.Endpoint.newBuilder().setId("vm-" + e)
          .setIpAddress("10." + (s >> 12) + "." + ((s >> 4) & 255) + "." + ((s & 15) * 16 + e)).build());
    }
    return BackendService.newBuilder(service(populated(s))).setEndpoints(endpoints).build();
  }

  static <V extends org.apache.avro.specific.SpecificRecord> KafkaProducer<String, V> producer(
      EmbeddedKafka kafka, SchemaRegistryClient client, io.healthmesh.schemas.Topic<String, V> topic) {
    return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all"), topic.keySerde(client).serializer(), topic.valueSerde(client).serializer());
  }

  static java.util.Collection<MemberDescription> members(EmbeddedKafka kafka, String app) throws Exception {
    try (Admin admin = kafka.admin()) {
      return admin.describeConsumerGroups(List.of(app)).all().get(10, TimeUnit.SECONDS).get(app).members();
    }
  }

  /** Flips every endpoint on every tick. */
  static final class Prober {
    private final KafkaProducer<String, ProbeResult> producer;
    private final Map<String, Integer> sent = new ConcurrentHashMap<>();
    private final Thread thread = new Thread(this::run, "fleet-prober");
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
              .setProber("fleet").build()));
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
  final class Background {
    private final KafkaProducer<String, ProbeResult> producer;
    private final Thread thread = new Thread(this::run, "fleet-background");
    private volatile boolean running = true;

    Background() {
      this.producer = producer(kafka, client, Topics.PROBE_RESULTS);
      thread.setDaemon(true);
    }

    void probeAllOnce() {
      for (int i = 0; i < population; i++) {
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
        long due = (System.nanoTime() - start) * backgroundRate / 1_000_000_000L;
        for (; sent < due; sent++) {
          int i = random.nextInt(population);
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
          .setEventTime(Instant.now()).setProber("fleet").build()));
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
  static final class Watcher {
    private final KafkaConsumer<EntityKey, HealthTransition> consumer;
    private final Map<String, List<HealthTransition>> transitions = new ConcurrentHashMap<>();
    private final Map<String, List<Long>> arrivals = new ConcurrentHashMap<>();
    private final Thread thread = new Thread(this::run, "fleet-watcher");
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
