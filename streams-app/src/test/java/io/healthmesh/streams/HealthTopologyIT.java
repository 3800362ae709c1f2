package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.HealthSource;
import io.healthmesh.config.LoadBalancerType;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.endpoint.EndpointWrites;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The topology as its own process on the real broker and registry, killed with SIGKILL in the
 * middle of a stream of probes and restarted from nothing but Kafka: every transition is there
 * exactly once, and the sequence equals what the same input gives in a TopologyTestDriver.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class HealthTopologyIT {
  private static final List<String> VMS = Harness.vms(1, 4);
  private static final int ROUNDS = 300;
  private static final int KILL_AT = 140;

  record Probe(String vm, boolean success, Instant at) {}

  /** Flapping in blocks: all up, three down, all up, one down, ... so every stage transitions often. */
  static List<Probe> probes(Instant t0) {
    List<Probe> probes = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      int block = round / 20;
      for (String vm : VMS) {
        boolean down = block % 2 == 1 && (block % 4 == 1 ? !vm.equals("vm-1") : vm.equals("vm-4"));
        probes.add(new Probe(vm, !down, t0.plusMillis(round * 250L)));
      }
    }
    return probes;
  }

  static BackendService service() {
    // Stale only after 10 minutes of silence: this test is about crashes, not staleness.
    return BackendService.newBuilder(Harness.service("orders", 4))
        .setHealthCheck(HealthCheckSpec.newBuilder().setCheckIntervalSec(1).setStaleAfterIntervals(600).build()).build();
  }

  static Map<Topic<String, ?>, Map.Entry<String, SpecificRecord>> configuration() {
    Map<Topic<String, ?>, Map.Entry<String, SpecificRecord>> c = new LinkedHashMap<>();
    c.put(Topics.BACKEND_SERVICES, Map.entry("orders", service()));
    c.put(Topics.HEALTH_AGGREGATION_POLICIES, Map.entry("strict", HealthAggregationPolicy.newBuilder().setName("strict")
        .setRegion(Harness.REGION).setHealthyPercentThreshold(75).setMinHealthyThreshold(3).build()));
    c.put(Topics.HEALTH_SOURCES, Map.entry("orders-src", HealthSource.newBuilder().setName("orders-src")
        .setRegion(Harness.REGION).setBackendService("orders").setHealthAggregationPolicy("strict").build()));
    c.put(Topics.FORWARDING_RULES, Map.entry("fr-orders", ForwardingRule.newBuilder().setName("fr-orders")
        .setRegion(Harness.REGION).setIpAddress("10.1.0.100").setBackendService("orders")
        .setLoadBalancerType(LoadBalancerType.regionalL4ilb).build()));
    c.put(Topics.COMPOSITE_HEALTH_CHECKS, Map.entry("orders-chc", CompositeHealthCheck.newBuilder().setName("orders-chc")
        .setRegion(Harness.REGION).setHealthSources(List.of("orders-src")).setHealthDestination("fr-orders").build()));
    return c;
  }

  /** Against both ways of writing endpoint state, the internal commit hook and the public cache. */
  @ParameterizedTest
  @EnumSource(EndpointWrites.class)
  void losesAndDuplicatesNoTransition_whenKilledMidStreamAndRestarted(EndpointWrites writes, @TempDir Path dir) throws Exception {
    // 75 s of event time, all before the broker's append times (probe-results has LogAppendTime),
    // so that no result is dated ahead of its record (R-EP-4) and the expected run applies as is.
    Instant t0 = Instant.now().minusSeconds(90).truncatedTo(ChronoUnit.SECONDS);
    List<Probe> probes = probes(t0);
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      publishConfiguration(kafka, client);

      Process first = startApp(kafka, registry, dir.resolve("state-1"), dir.resolve("app-1.log"), writes);
      // As an operator would: the configuration is in force before probes flow. (Config and
      // probes live on different partitions, so without this wait their interleaving is free.)
      awaitState(kafka, client, "COMPOSITE_HEALTH_CHECK|orders-chc", Duration.ofSeconds(60));
      try (KafkaProducer<String, ProbeResult> producer = BrokerIO.producer(kafka, Topics.PROBE_RESULTS, client)) {
        for (int i = 0; i < probes.size(); i++) {
          if (i == KILL_AT * VMS.size()) {
            producer.flush();
            first.destroyForcibly(); // SIGKILL: no clean shutdown, no final commit
            assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
          }
          Probe p = probes.get(i);
          ProbeResult value = ProbeResult.newBuilder().setBackendService("orders").setEndpointId(p.vm())
              .setSuccess(p.success()).setEventTime(p.at()).setProber("it").build();
          producer.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, p.at().toEpochMilli(), "orders", value));
          if (i % 8 == 0) {
            Thread.sleep(5); // a stream, not one batch: the kill lands mid-processing
          }
        }
      }
      // A new instance with an empty state directory: everything comes back from Kafka.
      Process second = startApp(kafka, registry, dir.resolve("state-2"), dir.resolve("app-2.log"), writes);
      try {
        Map<String, List<HealthTransition>> expected = expected(probes);
        Map<String, List<HealthTransition>> actual = awaitTransitions(kafka, client, expected, Duration.ofSeconds(120));
        List<String> differences = new ArrayList<>();
        for (Map.Entry<String, List<HealthTransition>> e : expected.entrySet()) {
          List<String> want = e.getValue().stream().map(HealthTopologyIT::describe).toList();
          List<String> got = actual.getOrDefault(e.getKey(), List.of()).stream().map(HealthTopologyIT::describe).toList();
          if (!got.equals(want)) {
            differences.add(e.getKey() + "\n  expected " + want + "\n  actual   " + got);
          }
        }
        if (!differences.isEmpty()) {
          dumpForDebugging(kafka, client);
        }
        assertThat(differences).as("transitions that differ from an uninterrupted run").isEmpty();
        assertThat(expected.get("HEALTH_SOURCE|orders-src")).as("the scenario flaps").hasSizeGreaterThanOrEqualTo(8);
      } finally {
        second.destroy();
        second.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * Status, version and, for what probes alone decide, event time. A load balancer's or
   * composite's first evaluation may come from its configuration record, whose arrival among
   * the probe-driven updates depends on partition interleaving, so its event time is not compared.
   */
  private static String describe(HealthTransition t) {
    EntityKind kind = t.getEntity().getKind();
    boolean probeDriven = kind == EntityKind.ENDPOINT || kind == EntityKind.BACKEND_SERVICE || kind == EntityKind.HEALTH_SOURCE;
    return t.getOldStatus() + ">" + t.getNewStatus() + " v" + t.getVersion() + (probeDriven ? " @" + t.getEventTime() : "");
  }

  private static void awaitState(EmbeddedKafka kafka, SchemaRegistryClient client, String entity, Duration timeout) {
    Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<EntityKey, io.healthmesh.events.HealthState> consumer = new KafkaConsumer<>(props,
        Topics.HEALTH_STATE.keySerde(client).deserializer(), Topics.HEALTH_STATE.valueSerde(client).deserializer())) {
      consumer.assign(consumer.partitionsFor(Topics.HEALTH_STATE.name()).stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).toList());
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<EntityKey, io.healthmesh.events.HealthState> r : consumer.poll(Duration.ofMillis(200))) {
          if ((r.key().getKind() + "|" + r.key().getName()).equals(entity)) {
            return;
          }
        }
      }
    }
    throw new AssertionError("no state for " + entity + " within " + timeout);
  }

  private static void dumpForDebugging(EmbeddedKafka kafka, SchemaRegistryClient client) {
    Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    for (String topic : List.of("health-state", "config-dlq", "probe-results-dlq")) {
      try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props,
          new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
          new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
        consumer.assign(consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList());
        for (int i = 0; i < 5; i++) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
            Object value = r.value() == null ? null : new io.healthmesh.schemas.AvroDeserializer<>(client).deserialize(topic, r.value());
            String text = String.valueOf(value);
            if (!text.contains("ENDPOINT") && !(topic.equals("health-state") && text.contains("consecutive"))) {
              System.out.println("DUMP " + topic + " p" + r.partition() + " @" + r.offset() + " ts=" + Instant.ofEpochMilli(r.timestamp())
                  + " " + new String(r.key(), StandardCharsets.UTF_8).replaceAll("[^ -~]", "?") + " " + text);
            }
          }
        }
      }
    }
  }

  /** The same input through the TopologyTestDriver: what an uninterrupted run publishes. */
  private static Map<String, List<HealthTransition>> expected(List<Probe> probes) {
    try (Harness h = new Harness()) {
      configuration().forEach((topic, kv) -> configure(h, topic, kv));
      probes.forEach(p -> h.probe("orders", p.vm(), p.success(), p.at()));
      h.drain();
      return byEntity(h.transitionLog);
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void configure(Harness h, Topic topic, Map.Entry<String, SpecificRecord> kv) {
    h.config(topic, kv.getKey(), kv.getValue(), Harness.T0);
  }

  private static Map<String, List<HealthTransition>> byEntity(List<HealthTransition> transitions) {
    Map<String, List<HealthTransition>> byEntity = new LinkedHashMap<>();
    for (HealthTransition t : transitions) {
      EntityKey e = t.getEntity();
      byEntity.computeIfAbsent(e.getKind() + "|" + e.getName(), k -> new ArrayList<>()).add(t);
    }
    return byEntity;
  }

  private static Map<String, List<HealthTransition>> awaitTransitions(EmbeddedKafka kafka, SchemaRegistryClient client,
      Map<String, List<HealthTransition>> expected, Duration timeout) throws InterruptedException {
    int wanted = expected.values().stream().mapToInt(List::size).sum();
    List<HealthTransition> read = new ArrayList<>();
    Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<EntityKey, HealthTransition> consumer = new KafkaConsumer<>(props,
        Topics.HEALTH_TRANSITIONS.keySerde(client).deserializer(),
        Topics.HEALTH_TRANSITIONS.valueSerde(client).deserializer())) {
      consumer.assign(consumer.partitionsFor(Topics.HEALTH_TRANSITIONS.name()).stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).toList());
      long deadline = System.nanoTime() + timeout.toNanos();
      long quietSince = System.nanoTime();
      while (System.nanoTime() < deadline) {
        int before = read.size();
        for (ConsumerRecord<EntityKey, HealthTransition> r : consumer.poll(Duration.ofMillis(500))) {
          read.add(r.value());
        }
        if (read.size() != before) {
          quietSince = System.nanoTime();
        }
        // Enough, and nothing more for 3 s: a duplicate would have shown up by then.
        if (read.size() >= wanted && System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(3)) {
          break;
        }
      }
    }
    return byEntity(read);
  }

  private static void publishConfiguration(EmbeddedKafka kafka, SchemaRegistryClient client) throws Exception {
    for (Map.Entry<Topic<String, ?>, Map.Entry<String, SpecificRecord>> c : configuration().entrySet()) {
      send(kafka, client, c.getKey(), c.getValue().getKey(), c.getValue().getValue());
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void send(EmbeddedKafka kafka, SchemaRegistryClient client, Topic topic, String key, SpecificRecord value)
      throws Exception {
    try (KafkaProducer producer = BrokerIO.producer(kafka, topic, client)) {
      producer.send(new ProducerRecord<>(topic.name(), key, value)).get();
    }
  }

  private static Process startApp(EmbeddedKafka kafka, SchemaRegistry registry, Path stateDir, Path log,
      EndpointWrites writes) throws Exception {
    return StreamsProcess.start(kafka, registry, "healthmesh-it", stateDir, log,
        StreamsSettings.ENDPOINT_WRITES + "=" + writes.setting);
  }
}
