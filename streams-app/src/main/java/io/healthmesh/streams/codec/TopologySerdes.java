package io.healthmesh.streams.codec;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthSource;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.HealthState;
import io.healthmesh.internal.ExternalEndpointRef;
import io.healthmesh.internal.ForwardingRuleRef;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.schemas.AvroDeserializer;
import io.healthmesh.schemas.AvroSerde;
import io.healthmesh.schemas.AvroSerializer;
import io.healthmesh.schemas.SchemaRegistryClient;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * Every serde the topology uses, built on one registry client. Inputs are read as bytes and
 * decoded inside the processors, so a record that cannot be decoded is dead-lettered with its
 * position instead of stopping the application. Internal hops the topology writes itself are
 * typed ({@link #externalRefs}, {@link #ruleRefs}): what it wrote, it can read.
 */
public final class TopologySerdes {
  /** Subject base of the aggregate stage's input values. */
  static final String AGGREGATE_INPUT_SUBJECT_TOPIC = "healthmesh-aggregate-input";
  /** Subject base of the external-endpoint references on their way to the probe partitions. */
  static final String EXTERNAL_REFS_SUBJECT_TOPIC = "healthmesh-external-endpoints";
  /** Subject base of forwarding rules on their way to their backend service's partition. */
  static final String RULE_REFS_SUBJECT_TOPIC = "healthmesh-service-forwarding-rules";

  public final SchemaRegistryClient registry;
  public final ProbeDecoder probes;
  public final AvroDeserializer<BackendService> backendServices;
  public final AvroDeserializer<HealthAggregationPolicy> policies;
  public final AvroDeserializer<HealthSource> sources;
  public final AvroDeserializer<CompositeHealthCheck> composites;
  public final AvroDeserializer<ForwardingRule> forwardingRules;
  public final AvroDeserializer<ResourceRecordSet> recordSets;
  private final AvroSerializer<ServiceSnapshot> snapshots;
  private final AvroDeserializer<ServiceSnapshot> snapshotReader;

  public TopologySerdes(SchemaRegistryClient registry) {
    this.registry = registry;
    this.probes = new ProbeDecoder(registry);
    this.backendServices = new AvroDeserializer<>(registry, BackendService.class);
    this.policies = new AvroDeserializer<>(registry, HealthAggregationPolicy.class);
    this.sources = new AvroDeserializer<>(registry, HealthSource.class);
    this.composites = new AvroDeserializer<>(registry, CompositeHealthCheck.class);
    this.forwardingRules = new AvroDeserializer<>(registry, ForwardingRule.class);
    this.snapshots = new AvroSerializer<>(registry, false);
    this.snapshotReader = new AvroDeserializer<>(registry, ServiceSnapshot.class);
    this.recordSets = new AvroDeserializer<>(registry, ResourceRecordSet.class);
  }

  /** Values of a changelogged store. */
  public <T extends SpecificRecord> Serde<T> store(Class<T> type) {
    return new AvroSerde<>(registry, type, false);
  }

  /** A record set's use of an external endpoint, on its way to the endpoint's probe partition. */
  public Serde<ExternalEndpointRef> externalRefs() {
    return hop(ExternalEndpointRef.class, EXTERNAL_REFS_SUBJECT_TOPIC);
  }

  /** A forwarding rule on its way to its backend service's partition. */
  public Serde<ForwardingRuleRef> ruleRefs() {
    return hop(ForwardingRuleRef.class, RULE_REFS_SUBJECT_TOPIC);
  }

  /** A service snapshot framed for the aggregate stage's shared input ({@link AggregateInput}). */
  public byte[] frame(ServiceSnapshot snapshot) {
    return snapshots.serialize(AGGREGATE_INPUT_SUBJECT_TOPIC, snapshot);
  }

  public ServiceSnapshot snapshot(byte[] framed) {
    return snapshotReader.deserialize(AGGREGATE_INPUT_SUBJECT_TOPIC, framed);
  }

  public Serde<ServiceSnapshot> serviceSnapshots() {
    return store(ServiceSnapshot.class);
  }

  public Serde<HealthState> healthStates() {
    return store(HealthState.class);
  }

  public Serde<ConsumerFailover> failovers() {
    return store(ConsumerFailover.class);
  }

  /**
   * Under one subject whatever the internal topic's name (which carries the application id), so
   * that every deployment and replay registers and reads the same schema versions.
   */
  private <T extends SpecificRecord> Serde<T> hop(Class<T> type, String subjectTopic) {
    AvroSerializer<T> writer = new AvroSerializer<>(registry, false);
    AvroDeserializer<T> reader = new AvroDeserializer<>(registry, type);
    return Serdes.serdeFrom((topic, value) -> writer.serialize(subjectTopic, value),
        (topic, bytes) -> reader.deserialize(subjectTopic, bytes));
  }
}
