package io.healthmesh.streams;

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

/**
 * Every serde the topology uses, built on one registry client. Inputs are read as bytes and
 * decoded inside the processors, so a record that cannot be decoded is dead-lettered with its
 * position instead of stopping the application.
 */
final class TopologySerdes {
  /** Subject base of the aggregate stage's input values. */
  static final String AGGREGATE_INPUT_SUBJECT_TOPIC = "healthmesh-aggregate-input";
  /** Subject base of the external-endpoint references on their way to the probe partitions. */
  static final String EXTERNAL_REFS_SUBJECT_TOPIC = "healthmesh-external-endpoints";
  /** Subject base of forwarding rules on their way to their backend service's partition. */
  static final String RULE_REFS_SUBJECT_TOPIC = "healthmesh-service-forwarding-rules";

  final SchemaRegistryClient registry;
  final ProbeDecoder probes;
  final AvroDeserializer<BackendService> backendServices;
  final AvroDeserializer<HealthAggregationPolicy> policies;
  final AvroDeserializer<HealthSource> sources;
  final AvroDeserializer<CompositeHealthCheck> composites;
  final AvroDeserializer<ForwardingRule> forwardingRules;
  final AvroSerializer<ServiceSnapshot> snapshots;
  final AvroDeserializer<ServiceSnapshot> snapshotReader;
  final AvroDeserializer<ResourceRecordSet> recordSets;
  final AvroSerializer<ExternalEndpointRef> externalRefs;
  final AvroDeserializer<ExternalEndpointRef> externalRefReader;
  final AvroSerializer<ForwardingRuleRef> ruleRefs;
  final AvroDeserializer<ForwardingRuleRef> ruleRefReader;

  TopologySerdes(SchemaRegistryClient registry) {
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
    this.externalRefs = new AvroSerializer<>(registry, false);
    this.externalRefReader = new AvroDeserializer<>(registry, ExternalEndpointRef.class);
    this.ruleRefs = new AvroSerializer<>(registry, false);
    this.ruleRefReader = new AvroDeserializer<>(registry, ForwardingRuleRef.class);
  }

  <T extends SpecificRecord> Serde<T> store(Class<T> type) {
    return new AvroSerde<>(registry, type, false);
  }

  Serde<EndpointTable.Group> endpointGroups() {
    return new EndpointGroupSerde(registry);
  }

  Serde<ServiceSnapshot> serviceSnapshots() {
    return store(ServiceSnapshot.class);
  }

  Serde<HealthState> healthStates() {
    return store(HealthState.class);
  }

  Serde<ConsumerFailover> failovers() {
    return store(ConsumerFailover.class);
  }
}
