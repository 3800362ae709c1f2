package io.healthmesh.streams;

import io.healthmesh.events.DeadLetter;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.aggregate.AggregateProcessor;
import io.healthmesh.streams.aggregate.AggregateStores;
import io.healthmesh.streams.codec.AggregateInput.Kind;
import io.healthmesh.streams.codec.ServiceInput;
import io.healthmesh.streams.codec.TopologySerdes;
import io.healthmesh.streams.endpoint.PerServiceProcessor;
import io.healthmesh.streams.endpoint.PerServiceStores;
import io.healthmesh.streams.ingest.ExternalTargetsProcessor;
import io.healthmesh.streams.ingest.ForwardingRuleRouter;
import io.healthmesh.streams.ingest.OriginTagger;
import io.healthmesh.streams.ingest.PartitionRouter;
import io.healthmesh.streams.output.Metrics;
import io.healthmesh.streams.output.Out;
import io.healthmesh.streams.output.PublishTime;
import io.healthmesh.streams.store.KeyValueStores;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.kstream.ValueMapper;

/** Builds the health topology; the steps below are the order in which the data flows. */
public final class HealthTopology {
  private static final Consumed<String, byte[]> RAW = Consumed.with(Serdes.String(), Serdes.ByteArray());

  /** The topics the topology reads; {@code TopologyAccessTest} holds this to what {@link #build} consumes. */
  static final List<String> INPUTS = Stream.of(Topics.PROBE_RESULTS, Topics.BACKEND_SERVICES,
      Topics.RESOURCE_RECORD_SETS, Topics.FORWARDING_RULES, Topics.HEALTH_AGGREGATION_POLICIES, Topics.HEALTH_SOURCES,
      Topics.COMPOSITE_HEALTH_CHECKS).map(Topic::name).toList();
  /** The topics the topology writes; {@code TopologyAccessTest} holds this to what {@link #build} produces. */
  static final List<String> OUTPUTS = Stream.of(Topics.HEALTH_STATE, Topics.HEALTH_TRANSITIONS,
      Topics.PROBE_RESULTS_DLQ, Topics.CONFIG_DLQ, Topics.CONSUMER_FAILOVER).map(Topic::name).toList();

  private HealthTopology() {}

  /**
   * Refuses a topology with an internal topic or store named by Kafka Streams: such a name is
   * made from the node's position, so a change elsewhere in the topology would rename a changelog
   * or repartition topic under a running deployment and lose its state.
   */
  static TopologyConfig topologyConfig(StreamsSettings settings) {
    Properties p = settings.streamsProperties();
    p.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
    return new TopologyConfig(new StreamsConfig(p));
  }

  /**
   * @param probePartitions partitions of {@code probe-results}: external endpoints' configuration
   *     is moved to the same number of partitions so that it meets their probes
   */
  public static Topology build(StreamsSettings settings, SchemaRegistryClient registry, MeterRegistry meters,
      int probePartitions) {
    TopologySerdes serdes = new TopologySerdes(registry);
    Metrics metrics = new Metrics(meters);
    StreamsBuilder builder = new StreamsBuilder(topologyConfig(settings));
    boolean changelogs = settings.changelogs();
    PerServiceStores.add(builder, serdes, registry, changelogs, settings.endpointWrites());
    AggregateStores.add(builder, serdes, changelogs);
    builder.addStateStore(KeyValueStores.inMemory(ExternalTargetsProcessor.RECORD_SET_ADDRESSES, changelogs, Serdes.String()));
    builder.addStateStore(KeyValueStores.inMemory(ForwardingRuleRouter.RULE_SERVICES, changelogs, Serdes.String()));

    // 1. Probe results and backend services, both keyed (and so partitioned) by backend service;
    //    external endpoints' probes by address, so the record sets that check them are re-keyed so.
    //    Probes that another client's partitioner put elsewhere are moved to their service's partition.
    //    So are backend services that a producer without murmur2 wrote.
    Routed probes = routed(builder, Topics.PROBE_RESULTS.name(), "probes", "probes-moved", serdes, metrics,
        probePartitions, v -> new ServiceInput.Probe(v, false), v -> new ServiceInput.Probe(v, true));
    Routed backendServices = routed(builder, Topics.BACKEND_SERVICES.name(), "services", "services-moved", serdes,
        metrics, probePartitions, v -> new ServiceInput.Service(v, false), v -> new ServiceInput.Service(v, true));
    Map<String, KStream<String, Out>> recordSets = builder
        .stream(Topics.RESOURCE_RECORD_SETS.name(), RAW.withName("record-sets"))
        .process(() -> new ExternalTargetsProcessor(serdes, metrics), Named.as("external-targets"),
            ExternalTargetsProcessor.RECORD_SET_ADDRESSES)
        .split(Named.as("record-set-"))
        .branch((k, out) -> out instanceof Out.ExternalRef, Branched.as("external-refs"))
        .defaultBranch(Branched.as("rejections"));
    KStream<String, ServiceInput> externalEndpoints = recordSets.get("record-set-external-refs")
        .mapValues(out -> ((Out.ExternalRef) out).ref(), Named.as("external-ref-values"))
        .repartition(Repartitioned.with(Serdes.String(), serdes.externalRefs()).withName("external-endpoints")
            .withNumberOfPartitions(probePartitions))
        .mapValues(ServiceInput.ExternalRef::new, Named.as("tag-external-refs"));

    // 2. Endpoint state machines and service counts: bad records to the dead-letter topics,
    //    state changes onwards (R-EP-*, R-AGG-6).
    KStream<String, byte[]> forwardingRules = builder.stream(Topics.FORWARDING_RULES.name(), RAW.withName("forwarding-rules"));
    KStream<String, ServiceInput> serviceRules = forwardingRules
        .process(() -> new ForwardingRuleRouter(serdes), Named.as("rules-by-service"), ForwardingRuleRouter.RULE_SERVICES)
        .repartition(Repartitioned.with(Serdes.String(), serdes.ruleRefs()).withName("service-forwarding-rules")
            .withNumberOfPartitions(probePartitions))
        .mapValues(ServiceInput.RuleRef::new, Named.as("tag-rule-refs"));
    // Probes join last, so they pass one merge node, not three.
    Map<String, KStream<String, Out>> perService = backendServices.here()
        .merge(backendServices.moved(), Named.as("and-moved-services"))
        .merge(externalEndpoints, Named.as("services-and-external-endpoints"))
        .merge(serviceRules, Named.as("and-load-balancers"))
        .merge(probes.moved(), Named.as("and-moved-probes"))
        .merge(probes.here(), Named.as("and-probes"))
        .process(() -> new PerServiceProcessor(serdes, settings.perService(), metrics), Named.as("endpoint-health"),
            PerServiceStores.names(settings.endpointWrites()))
        .split(Named.as("per-service-"))
        .branch((k, out) -> out instanceof Out.Snapshot, Branched.as("snapshots"))
        .defaultBranch(Branched.as("outputs"));

    // 3. Service snapshots and the small configuration tables meet in one partition.
    KStream<String, byte[]> aggregateInput = perService.get("per-service-snapshots")
        .mapValues(out -> serdes.frame(((Out.Snapshot) out).snapshot()), Named.as("service-snapshots"))
        .merge(tagged(builder, Topics.HEALTH_AGGREGATION_POLICIES, Kind.POLICY))
        .merge(tagged(builder, Topics.HEALTH_SOURCES, Kind.SOURCE))
        .merge(tagged(builder, Topics.COMPOSITE_HEALTH_CHECKS, Kind.COMPOSITE))
        .merge(tagged(forwardingRules, Topics.FORWARDING_RULES, Kind.FORWARDING_RULE))
        .repartition(Repartitioned.<String, byte[]>as("aggregate-input")
            .withKeySerde(Serdes.String()).withValueSerde(Serdes.ByteArray()).withNumberOfPartitions(1));

    // 4. Services, sources, composites, load balancers and consumer NEGs (R-AGG-*, R-CH-*, R-DNSHC-2/3).
    KStream<String, Out> aggregates = aggregateInput
        .process(() -> new AggregateProcessor(serdes, metrics, settings.commits()), Named.as("aggregate-health"),
            AggregateStores.names());

    // 5. Publish states, transitions, dead letters and failover decisions.
    publish(perService.get("per-service-outputs").merge(aggregates, Named.as("all-outputs"))
        .merge(recordSets.get("record-set-rejections"), Named.as("and-record-set-rejections")), registry);
    return builder.build();
  }

  /** A topic's records on the partition their key belongs to, and those moved there, both tagged. */
  private record Routed(KStream<String, ServiceInput> here, KStream<String, ServiceInput> moved) {}

  /**
   * Reads {@code topic} and moves each record that another client's partitioner put elsewhere to
   * its key's partition through an internal topic; the router forwards each record to one of two
   * children by name, and both come out tagged as the per-service stage's input.
   */
  private static Routed routed(StreamsBuilder builder, String topic, String what, String repartition,
      TopologySerdes serdes, Metrics metrics, int partitions, Function<byte[], ServiceInput> tagHere,
      ValueMapper<byte[], ServiceInput> tagMoved) {
    String here = what + "-on-their-partition";
    String elsewhere = what + "-on-another-partition";
    KStream<String, ServiceInput> routed = builder.stream(topic, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray())
            .withName(topic))
        .process(() -> new PartitionRouter(serdes, metrics, partitions, here, elsewhere, tagHere),
            Named.as(what + "-partitions"));
    // The rare path goes back to bytes for the internal topic; every probe on its partition passes
    // the router's tag and this no-op child, as cheap as a record can be forwarded.
    KStream<String, ServiceInput> moved = routed.mapValues(ServiceInput::raw, Named.as(elsewhere))
        .repartition(Repartitioned.<String, byte[]>as(repartition)
            .withKeySerde(Serdes.String()).withValueSerde(Serdes.ByteArray()).withNumberOfPartitions(partitions))
        .mapValues(tagMoved, Named.as("tag-" + repartition));
    return new Routed(routed.filter((k, v) -> true, Named.as(here)), moved);
  }

  private static KStream<String, byte[]> tagged(StreamsBuilder builder, Topic<String, ?> topic, Kind kind) {
    return tagged(builder.stream(topic.name(), RAW.withName(topic.name())), topic, kind);
  }

  private static KStream<String, byte[]> tagged(KStream<String, byte[]> stream, Topic<String, ?> topic, Kind kind) {
    return stream.process(() -> new OriginTagger(kind), Named.as("tag-" + topic.name()));
  }

  /** One branch per kind of output. */
  private static void publish(KStream<String, Out> outputs, SchemaRegistryClient registry) {
    outputs.split(Named.as("publish-"))
        .branch((k, out) -> out instanceof Out.State, Branched.withConsumer(states -> states
            .process(PublishTime::new, Named.as("stamp-publish-time"))
            .to(Topics.HEALTH_STATE.name(), produced(Topics.HEALTH_STATE, registry)), "states"))
        .branch((k, out) -> out instanceof Out.Transition, Branched.withConsumer(transitions -> transitions
            .map((k, out) -> KeyValue.pair(((Out.Transition) out).key(), ((Out.Transition) out).transition()))
            .to(Topics.HEALTH_TRANSITIONS.name(), produced(Topics.HEALTH_TRANSITIONS, registry)), "transitions"))
        .branch((k, out) -> deadLetterFor(out, Topics.PROBE_RESULTS_DLQ),
            Branched.withConsumer(letters -> deadLetters(letters, Topics.PROBE_RESULTS_DLQ, registry), "probe-dead-letters"))
        .branch((k, out) -> deadLetterFor(out, Topics.CONFIG_DLQ),
            Branched.withConsumer(letters -> deadLetters(letters, Topics.CONFIG_DLQ, registry), "config-dead-letters"))
        .branch((k, out) -> out instanceof Out.Failover, Branched.withConsumer(failovers -> failovers
            .map((k, out) -> KeyValue.pair(((Out.Failover) out).consumer(), ((Out.Failover) out).decision()))
            .to(Topics.CONSUMER_FAILOVER.name(), produced(Topics.CONSUMER_FAILOVER, registry)), "failovers"))
        .noDefaultBranch();
  }

  private static boolean deadLetterFor(Out out, Topic<String, ?> dlq) {
    return out instanceof Out.DeadLettered d && d.topic().equals(dlq.name());
  }

  private static void deadLetters(KStream<String, Out> letters, Topic<String, DeadLetter> dlq, SchemaRegistryClient registry) {
    letters.map((k, out) -> KeyValue.pair(((Out.DeadLettered) out).key(), ((Out.DeadLettered) out).letter()))
        .to(dlq.name(), produced(dlq, registry));
  }

  private static <K, V extends SpecificRecord> Produced<K, V> produced(
      Topic<K, V> topic, SchemaRegistryClient registry) {
    return Produced.with(topic.keySerde(registry), topic.valueSerde(registry));
  }
}
