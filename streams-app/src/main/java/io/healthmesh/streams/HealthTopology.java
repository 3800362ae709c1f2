package io.healthmesh.streams;

import static io.healthmesh.streams.AggregateHealthProcessor.COMPOSITES;
import static io.healthmesh.streams.AggregateHealthProcessor.CONFIG_OFFSETS;
import static io.healthmesh.streams.AggregateHealthProcessor.FAILOVERS;
import static io.healthmesh.streams.AggregateHealthProcessor.FORWARDING_RULES;
import static io.healthmesh.streams.AggregateHealthProcessor.POLICIES;
import static io.healthmesh.streams.AggregateHealthProcessor.SOURCES;
import static io.healthmesh.streams.EndpointHealthProcessor.ENDPOINTS;

import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthSource;
import io.healthmesh.internal.ExternalEndpointRef;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.events.DeadLetter;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.AggregateInput.Kind;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/** Builds the health topology; the steps below are the order in which the data flows. */
public final class HealthTopology {
  /** Name (suffix) of the internal topic that carries external-endpoint references to probe partitions. */
  static final String EXTERNAL_REFS_REPARTITION = "external-endpoints-repartition";
  /** Name (suffix) of the internal topic that carries forwarding rules to their service's partition. */
  static final String RULE_REFS_REPARTITION = "service-forwarding-rules-repartition";
  /** Name (suffix) of the internal topic that moves probe results to their service's partition. */
  static final String PROBES_MOVED_REPARTITION = "probes-moved-repartition";
  /** Name (suffix) of the internal topic that moves backend services to their name's partition. */
  static final String SERVICES_MOVED_REPARTITION = "services-moved-repartition";
  private static final Consumed<String, byte[]> RAW = Consumed.with(Serdes.String(), Serdes.ByteArray());

  private HealthTopology() {}

  /**
   * Refuses a topology with an internal topic or store named by Kafka Streams: such a name is
   * made from the node's position, so a change elsewhere in the topology would rename a changelog
   * or repartition topic under a running deployment and lose its state.
   */
  static TopologyConfig topologyConfig(StreamsSettings settings) {
    java.util.Properties p = settings.streamsProperties();
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
    addStores(builder, serdes, settings.changelogs(), settings.endpointWrites());

    // 1. Probe results and backend services, both keyed (and so partitioned) by backend service;
    //    external endpoints' probes by address, so the record sets that check them are re-keyed so.
    //    Probes that another client's partitioner put elsewhere are moved to their service's partition.
    //    So are backend services that a producer without murmur2 wrote.
    Routed probes = routed(builder, Topics.PROBE_RESULTS.name(), "probes", PROBES_MOVED_REPARTITION, serdes, metrics,
        probePartitions);
    Routed backendServices = routed(builder, Topics.BACKEND_SERVICES.name(), "services", SERVICES_MOVED_REPARTITION,
        serdes, metrics, probePartitions);
    KStream<String, Out> recordSets = builder.stream(Topics.RESOURCE_RECORD_SETS.name(), RAW.withName("record-sets"))
        .process(() -> new ExternalTargetsProcessor(serdes, metrics), Named.as("external-targets"),
            ExternalTargetsProcessor.RECORD_SET_ADDRESSES);
    KStream<String, byte[]> externalEndpoints = recordSets
        .filter((k, out) -> out instanceof Out.ExternalRef, Named.as("external-refs"))
        .mapValues(out -> ((Out.ExternalRef) out).value())
        .repartition(Repartitioned.<String, byte[]>as(EXTERNAL_REFS_REPARTITION.replace("-repartition", ""))
            .withKeySerde(Serdes.String()).withValueSerde(Serdes.ByteArray()).withNumberOfPartitions(probePartitions));

    // 2. Endpoint state machines and service counts: bad records to the dead-letter topics,
    //    state changes onwards (R-EP-*, R-AGG-6).
    KStream<String, byte[]> forwardingRules = builder.stream(Topics.FORWARDING_RULES.name(), RAW.withName("forwarding-rules"));
    KStream<String, byte[]> serviceRules = forwardingRules
        .process(() -> new ForwardingRuleRouter(serdes), Named.as("rules-by-service"), ForwardingRuleRouter.RULE_SERVICES)
        .repartition(Repartitioned.<String, byte[]>as(RULE_REFS_REPARTITION.replace("-repartition", ""))
            .withKeySerde(Serdes.String()).withValueSerde(Serdes.ByteArray()).withNumberOfPartitions(probePartitions));
    // Probes join last, so they pass one merge node, not three.
    KStream<String, Out> perService = backendServices.here()
        .merge(backendServices.moved(), Named.as("and-moved-services"))
        .merge(externalEndpoints, Named.as("services-and-external-endpoints"))
        .merge(serviceRules, Named.as("and-load-balancers"))
        .merge(probes.moved(), Named.as("and-moved-probes"))
        .merge(probes.here(), Named.as("and-probes"))
        .process(() -> new EndpointHealthProcessor(serdes, settings, metrics), Named.as("endpoint-health"),
            perServiceStores(settings.endpointWrites()));

    // 3. Service snapshots and the small configuration tables meet in one partition.
    KStream<String, byte[]> aggregateInput = perService
        .filter((k, out) -> out instanceof Out.ForAggregates, Named.as("service-snapshots"))
        .mapValues(out -> ((Out.ForAggregates) out).value())
        .merge(tagged(builder, Topics.HEALTH_AGGREGATION_POLICIES, Kind.POLICY))
        .merge(tagged(builder, Topics.HEALTH_SOURCES, Kind.SOURCE))
        .merge(tagged(builder, Topics.COMPOSITE_HEALTH_CHECKS, Kind.COMPOSITE))
        .merge(tagged(forwardingRules, Topics.FORWARDING_RULES, Kind.FORWARDING_RULE))
        .repartition(Repartitioned.<String, byte[]>as("aggregate-input")
            .withKeySerde(Serdes.String()).withValueSerde(Serdes.ByteArray()).withNumberOfPartitions(1));

    // 4. Services, sources, composites, load balancers and consumer NEGs (R-AGG-*, R-CH-*, R-DNSHC-2/3).
    KStream<String, Out> aggregates = aggregateInput
        .process(() -> new AggregateHealthProcessor(serdes, metrics, settings), Named.as("aggregate-health"),
            AggregateHealthProcessor.SERVICES, AggregateHealthProcessor.SERVICE_COUNTS, POLICIES, SOURCES, COMPOSITES, FORWARDING_RULES, CONFIG_OFFSETS,
            FAILOVERS, Publisher.PUBLISHED);

    // 5. Publish states, transitions, dead letters and failover decisions.
    publish(perService.merge(aggregates, Named.as("all-outputs"))
        .merge(recordSets.filter((k, out) -> !(out instanceof Out.ExternalRef)), Named.as("and-record-set-rejections")),
        registry);
    return builder.build();
  }

  /** A topic's records on the partition their key belongs to, and those moved there. */
  private record Routed(KStream<String, byte[]> here, KStream<String, byte[]> moved) {}

  /**
   * Reads {@code topic} and moves each record that another client's partitioner put elsewhere
   * to its key's partition through an internal topic; the router forwards each record to one of
   * the two branches by name.
   */
  private static Routed routed(StreamsBuilder builder, String topic, String what, String repartition,
      TopologySerdes serdes, Metrics metrics, int partitions) {
    String here = what + "-on-their-partition";
    String elsewhere = what + "-on-another-partition";
    KStream<String, byte[]> routed = builder.stream(topic, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray())
            .withName(topic))
        .process(() -> new PartitionRouter(serdes, metrics, partitions, here, elsewhere), Named.as(what + "-partitions"));
    KStream<String, byte[]> moved = routed.filter((k, v) -> true, Named.as(elsewhere))
        .repartition(Repartitioned.<String, byte[]>as(repartition.replace("-repartition", ""))
            .withKeySerde(Serdes.String()).withValueSerde(Serdes.ByteArray()).withNumberOfPartitions(partitions));
    return new Routed(routed.filter((k, v) -> true, Named.as(here)), moved);
  }

  private static KStream<String, byte[]> tagged(StreamsBuilder builder, Topic<String, ?> topic, Kind kind) {
    return tagged(builder.stream(topic.name(), RAW.withName(topic.name())), topic, kind);
  }

  private static KStream<String, byte[]> tagged(KStream<String, byte[]> stream, Topic<String, ?> topic, Kind kind) {
    return stream.process(() -> new OriginTagger(kind), Named.as("tag-" + topic.name()));
  }

  /** One branch per kind of output; what matches none (input for the next stage) goes nowhere. */
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

  private static <K, V extends org.apache.avro.specific.SpecificRecord> Produced<K, V> produced(
      Topic<K, V> topic, SchemaRegistryClient registry) {
    return Produced.with(topic.keySerde(registry), topic.valueSerde(registry));
  }

  private static String[] perServiceStores(EndpointWrites writes) {
    java.util.List<String> stores = new java.util.ArrayList<>(java.util.List.of(ENDPOINTS, EndpointHealthProcessor.SERVICES,
        EndpointHealthProcessor.PROBE_CLOCK, EndpointHealthProcessor.EXTERNAL_REFS, EndpointHealthProcessor.RULES,
        Publisher.PUBLISHED_TARGETS));
    if (writes == EndpointWrites.AT_COMMIT) {
      stores.add(EndpointHealthProcessor.COMMIT_HOOK);
    }
    return stores.toArray(String[]::new);
  }

  private static void addStores(StreamsBuilder builder, TopologySerdes serdes, boolean changelogs, EndpointWrites writes) {
    if (writes == EndpointWrites.AT_COMMIT) {
      // EndpointTable writes each changed group once per commit itself: no store cache.
      builder.addStateStore(store(ENDPOINTS, changelogs, serdes.endpointGroups()).withCachingDisabled());
      builder.addStateStore(CommitHook.builder(EndpointHealthProcessor.COMMIT_HOOK));
    } else {
      builder.addStateStore(store(ENDPOINTS, changelogs, serdes.endpointGroups()));
    }
    builder.addStateStore(store(EndpointHealthProcessor.SERVICES, changelogs, serdes.serviceSnapshots()));
    builder.addStateStore(store(EndpointHealthProcessor.PROBE_CLOCK, changelogs, Serdes.Long()));
    builder.addStateStore(store(EndpointHealthProcessor.EXTERNAL_REFS, changelogs, serdes.store(ExternalEndpointRef.class)));
    builder.addStateStore(store(ExternalTargetsProcessor.RECORD_SET_ADDRESSES, changelogs, Serdes.String()));
    builder.addStateStore(store(ForwardingRuleRouter.RULE_SERVICES, changelogs, Serdes.String()));
    builder.addStateStore(store(EndpointHealthProcessor.RULES, changelogs, serdes.store(ForwardingRule.class)));
    builder.addStateStore(store(Publisher.PUBLISHED_TARGETS, changelogs, serdes.healthStates()));
    builder.addStateStore(store(AggregateHealthProcessor.SERVICES, changelogs, serdes.serviceSnapshots()));
    builder.addStateStore(store(AggregateHealthProcessor.SERVICE_COUNTS, changelogs, serdes.serviceSnapshots()));
    builder.addStateStore(store(POLICIES, changelogs, serdes.store(HealthAggregationPolicy.class)));
    builder.addStateStore(store(SOURCES, changelogs, serdes.store(HealthSource.class)));
    builder.addStateStore(store(COMPOSITES, changelogs, serdes.store(CompositeHealthCheck.class)));
    builder.addStateStore(store(FORWARDING_RULES, changelogs, serdes.store(ForwardingRule.class)));
    builder.addStateStore(store(CONFIG_OFFSETS, changelogs, Serdes.Long()));
    builder.addStateStore(store(FAILOVERS, changelogs, serdes.failovers()));
    builder.addStateStore(store(Publisher.PUBLISHED, changelogs, serdes.healthStates()));
  }

  /**
   * Changelogged, so a restarted instance resumes exactly where it stopped, and kept in memory:
   * these tables are small (services, rules, sources, what was last published), RocksDB's writes
   * cost more than the work around them, and the cache folds a key's many writes between two
   * commits (a service's counts as its endpoints flip one after another) into one changelog
   * record. For an offline replay, no changelog at all: nothing restarts.
   */
  private static <V> StoreBuilder<KeyValueStore<String, V>> store(String name, boolean changelogs, Serde<V> values) {
    StoreBuilder<KeyValueStore<String, V>> builder =
        Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), values);
    return changelogs ? builder.withCachingEnabled() : builder.withLoggingDisabled();
  }
}
