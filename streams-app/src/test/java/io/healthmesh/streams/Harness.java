package io.healthmesh.streams;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.Endpoint;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.HealthSource;
import io.healthmesh.config.LoadBalancerType;
import io.healthmesh.config.LoadBalancingScheme;
import io.healthmesh.config.PscBackend;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.DeadLetter;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.AvroSerializer;
import io.healthmesh.schemas.InMemorySchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.IntStream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/** The real topology in a TopologyTestDriver, with helpers that read like the scenario. */
final class Harness implements AutoCloseable {
  static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");
  static final String REGION = "us-east1";

  final InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  final TopologyTestDriver driver;
  private final Map<String, TestInputTopic<String, byte[]>> inputs = new HashMap<>();
  private final TestOutputTopic<EntityKey, HealthState> states;
  private final TestOutputTopic<EntityKey, HealthTransition> transitions;
  private final TestOutputTopic<String, DeadLetter> probeDlq;
  private final TestOutputTopic<String, DeadLetter> configDlq;
  private final TestOutputTopic<String, ConsumerFailover> failovers;
  final List<KeyValue<EntityKey, HealthState>> stateLog = new ArrayList<>();
  final List<HealthTransition> transitionLog = new ArrayList<>();
  final List<DeadLetter> probeDeadLetters = new ArrayList<>();
  final List<DeadLetter> configDeadLetters = new ArrayList<>();
  final List<KeyValue<String, ConsumerFailover>> failoverLog = new ArrayList<>();

  private final TestInputTopic<byte[], byte[]> rawProbes;

  Harness() {
    this(1);
  }

  /**
   * A topology built for {@code probePartitions}: the driver reads every input on partition 0,
   * so every probe whose key belongs to another partition takes the way through the topic that
   * moves probes to their partition.
   */
  Harness(int probePartitions) {
    this(probePartitions, Map.of());
  }

  /** With these topology settings beside the test's own. */
  Harness(int probePartitions, Map<String, String> settings) {
    Properties given = props();
    given.putAll(settings);
    Properties props = StreamsSettings.from(given).streamsProperties();
    driver = new TopologyTestDriver(HealthTopology.build(StreamsSettings.from(given), registry, meters,
        probePartitions), props);
    rawProbes = driver.createInputTopic(Topics.PROBE_RESULTS.name(), new ByteArraySerializer(), new ByteArraySerializer());
    for (Topic<?, ?> t : Topics.all()) {
      inputs.put(t.name(), driver.createInputTopic(t.name(), new StringSerializer(), new ByteArraySerializer()));
    }
    states = driver.createOutputTopic(Topics.HEALTH_STATE.name(),
        Topics.HEALTH_STATE.keySerde(registry).deserializer(), Topics.HEALTH_STATE.valueSerde(registry).deserializer());
    transitions = driver.createOutputTopic(Topics.HEALTH_TRANSITIONS.name(),
        Topics.HEALTH_TRANSITIONS.keySerde(registry).deserializer(),
        Topics.HEALTH_TRANSITIONS.valueSerde(registry).deserializer());
    probeDlq = driver.createOutputTopic(Topics.PROBE_RESULTS_DLQ.name(),
        Topics.PROBE_RESULTS_DLQ.keySerde(registry).deserializer(), Topics.PROBE_RESULTS_DLQ.valueSerde(registry).deserializer());
    configDlq = driver.createOutputTopic(Topics.CONFIG_DLQ.name(),
        Topics.CONFIG_DLQ.keySerde(registry).deserializer(), Topics.CONFIG_DLQ.valueSerde(registry).deserializer());
    failovers = driver.createOutputTopic(Topics.CONSUMER_FAILOVER.name(),
        Topics.CONSUMER_FAILOVER.keySerde(registry).deserializer(), Topics.CONSUMER_FAILOVER.valueSerde(registry).deserializer());
  }

  static Properties props() {
    Properties p = new Properties();
    p.setProperty(StreamsSettings.APPLICATION_ID, "healthmesh-test");
    p.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, "127.0.0.1:9");
    p.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, "http://127.0.0.1:9");
    return p;
  }

  // ---- inputs

  <V extends SpecificRecord> void config(Topic<String, V> topic, String key, V value, Instant at) {
    byte[] bytes = value == null ? null : new AvroSerializer<V>(registry, false).serialize(topic.name(), value);
    inputs.get(topic.name()).pipeInput(key, bytes, at);
  }

  /** A probe-results record with any key bytes (null: no key). */
  void rawProbe(byte[] key, byte[] value, Instant at) {
    rawProbes.pipeInput(key, value, at);
  }

  void raw(String topic, String key, byte[] value, Instant at) {
    inputs.get(topic).pipeInput(key, value, at);
  }

  void service(BackendService s) {
    config(Topics.BACKEND_SERVICES, s.getName(), s, T0);
  }

  void policy(String name, int percent, int min, Instant at) {
    config(Topics.HEALTH_AGGREGATION_POLICIES, name, HealthAggregationPolicy.newBuilder().setName(name)
        .setRegion(REGION).setHealthyPercentThreshold(percent).setMinHealthyThreshold(min).build(), at);
  }

  void source(String name, String service, String policy) {
    config(Topics.HEALTH_SOURCES, name, HealthSource.newBuilder().setName(name).setRegion(REGION)
        .setBackendService(service).setHealthAggregationPolicy(policy).build(), T0);
  }

  void composite(String name, List<String> sources, String destination) {
    composite(CompositeHealthCheck.newBuilder().setName(name).setRegion(REGION)
        .setHealthSources(sources).setHealthDestination(destination).build());
  }

  void composite(CompositeHealthCheck c) {
    config(Topics.COMPOSITE_HEALTH_CHECKS, c.getName(), c, T0);
  }

  void forwardingRule(String name, String service, LoadBalancerType type) {
    config(Topics.FORWARDING_RULES, name, ForwardingRule.newBuilder().setName(name).setRegion(REGION)
        .setIpAddress("10.1.0.100").setBackendService(service).setLoadBalancerType(type).build(), T0);
  }

  void consumer(String name, List<PscBackend> negs) {
    service(BackendService.newBuilder().setName(name).setRegion("").setBackendType(BackendType.PRIVATE_SERVICE_CONNECT)
        .setLoadBalancingScheme(LoadBalancingScheme.EXTERNAL_MANAGED)
        .setHealthCheck(HealthCheckSpec.newBuilder().build()).setPscBackends(negs).build());
  }

  void probe(String service, String endpoint, boolean success, Instant at) {
    probe(service, endpoint, success, at, at);
  }

  /** A result whose prober dated it {@code eventTime}, appended by the broker at {@code recordTime}. */
  void probe(String service, String endpoint, boolean success, Instant eventTime, Instant recordTime) {
    probe("test", service, endpoint, success, eventTime, recordTime);
  }

  /** A result of the prober named {@code prober} (R-PQ-1). */
  void probe(String prober, String service, String endpoint, boolean success, Instant eventTime, Instant recordTime) {
    ProbeResult p = ProbeResult.newBuilder().setBackendService(service).setEndpointId(endpoint)
        .setSuccess(success).setEventTime(eventTime).setProber(prober).build();
    inputs.get(Topics.PROBE_RESULTS.name()).pipeInput(service, new AvroSerializer<ProbeResult>(registry, false)
        .serialize(Topics.PROBE_RESULTS.name(), p), recordTime);
  }

  /** {@code results} probes per endpoint, one second apart, starting at {@code from}. */
  void probeAll(String service, List<String> endpoints, boolean success, int results, Instant from) {
    for (int i = 0; i < results; i++) {
      for (String e : endpoints) {
        probe(service, e, success, from.plusSeconds(i));
      }
    }
  }

  /** A result for an external endpoint: no backend service, keyed by its address. */
  void externalProbe(String address, boolean success, Instant at) {
    ProbeResult p = ProbeResult.newBuilder().setEndpointId(address).setSuccess(success).setEventTime(at)
        .setProber("test").build();
    inputs.get(Topics.PROBE_RESULTS.name()).pipeInput(address, new AvroSerializer<ProbeResult>(registry, false)
        .serialize(Topics.PROBE_RESULTS.name(), p), at);
  }

  /** An A record set whose WRR items health check {@code addresses} directly. */
  void wrrWithExternalEndpoints(String name, List<String> addresses, HealthCheckSpec check, Instant at) {
    config(Topics.RESOURCE_RECORD_SETS, "internal/" + name + "/A", wrrOverExternalEndpoints(name, addresses, check), at);
  }

  /** An A record set of zone {@code internal} whose WRR items health check {@code addresses} directly. */
  static ResourceRecordSet wrrOverExternalEndpoints(String name, List<String> addresses, HealthCheckSpec check) {
    List<WrrItem> items = addresses.stream().map(a -> WrrItem.newBuilder().setWeight(1).setRrdatas(List.of(a))
        .setHealthCheckedTargets(HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(a)).build()).build()).toList();
    return ResourceRecordSet.newBuilder().setZone("internal").setName(name).setType("A")
        .setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(items).build())
            .setHealthCheck(check).build()).build();
  }

  void heartbeat(String key, Instant at) {
    heartbeat(key, at, at);
  }

  void heartbeat(String key, Instant eventTime, Instant recordTime) {
    ProbeResult p = ProbeResult.newBuilder().setType(ProbeRecordType.HEARTBEAT).setEventTime(eventTime).build();
    inputs.get(Topics.PROBE_RESULTS.name()).pipeInput(key, new AvroSerializer<ProbeResult>(registry, false)
        .serialize(Topics.PROBE_RESULTS.name(), p), recordTime);
  }

  // ---- outputs

  /** Drains every output topic into the logs and returns this. */
  Harness drain() {
    for (TestRecord<EntityKey, HealthState> r : states.readRecordsToList()) {
      stateLog.add(KeyValue.pair(r.key(), r.value()));
    }
    transitions.readValuesToList().forEach(transitionLog::add);
    probeDlq.readValuesToList().forEach(probeDeadLetters::add);
    configDlq.readValuesToList().forEach(configDeadLetters::add);
    for (TestRecord<String, ConsumerFailover> r : failovers.readRecordsToList()) {
      failoverLog.add(KeyValue.pair(r.key(), r.value()));
    }
    return this;
  }

  /** The latest published state of an entity, or null if none (or deleted). */
  HealthState state(EntityKind kind, String name) {
    drain();
    HealthState latest = null;
    for (KeyValue<EntityKey, HealthState> kv : stateLog) {
      if (kv.key.getKind() == kind && kv.key.getName().equals(name)) {
        latest = kv.value;
      }
    }
    return latest;
  }

  HealthStatus status(EntityKind kind, String name) {
    HealthState s = state(kind, name);
    return s == null ? null : s.getStatus();
  }

  List<HealthTransition> transitions(EntityKind kind, String name) {
    drain();
    return transitionLog.stream().filter(t -> t.getEntity().getKind() == kind && t.getEntity().getName().equals(name)).toList();
  }

  double counter(String name, String... tags) {
    var c = meters.find(name).tags(tags).counter();
    return c == null ? 0 : c.count();
  }

  // ---- fixtures

  static BackendService service(String name, int endpoints) {
    return service(name, endpoints, 2, 2);
  }

  static BackendService service(String name, int endpoints, int healthyThreshold, int unhealthyThreshold) {
    return BackendService.newBuilder().setName(name).setRegion(REGION)
        .setLoadBalancingScheme(LoadBalancingScheme.INTERNAL_MANAGED).setBackendType(BackendType.GCE_VM_IP_PORT)
        .setHealthCheck(HealthCheckSpec.newBuilder().setCheckIntervalSec(5).setHealthyThreshold(healthyThreshold)
            .setUnhealthyThreshold(unhealthyThreshold).setStaleAfterIntervals(3).build())
        .setEndpoints(IntStream.rangeClosed(1, endpoints)
            .mapToObj(i -> Endpoint.newBuilder().setId("vm-" + i).setIpAddress("10.1.0." + i).build()).toList())
        .build();
  }

  static List<String> vms(int from, int to) {
    return IntStream.rangeClosed(from, to).mapToObj(i -> "vm-" + i).toList();
  }

  static PscBackend neg(String name, String region, String forwardingRule) {
    return PscBackend.newBuilder().setNegName(name).setRegion(region).setForwardingRule(forwardingRule).build();
  }

  @Override
  public void close() {
    driver.close();
  }
}
