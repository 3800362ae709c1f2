package io.healthmesh.streams.aggregate;

import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthSource;
import io.healthmesh.streams.codec.TopologySerdes;
import io.healthmesh.streams.store.KeyValueStores;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;

/** The aggregate stage's stores; their names are those of their changelog topics, so they never change. */
public final class AggregateStores {
  static final String SERVICES = "aggregate-services";
  /** Counts apart from configurations: they change on every endpoint transition, configurations rarely. */
  static final String SERVICE_COUNTS = "aggregate-service-counts";
  public static final String POLICIES = "aggregate-policies";
  public static final String SOURCES = "aggregate-sources";
  public static final String COMPOSITES = "aggregate-composites";
  static final String FORWARDING_RULES = "aggregate-forwarding-rules";
  static final String CONFIG_OFFSETS = "aggregate-config-offsets";
  static final String FAILOVERS = "aggregate-failovers";
  /** Every entity the stage publishes, as last published. */
  public static final String PUBLISHED = "published-states";

  private AggregateStores() {}

  public static void add(StreamsBuilder builder, TopologySerdes serdes, boolean changelogs) {
    builder.addStateStore(KeyValueStores.inMemory(SERVICES, changelogs, serdes.serviceSnapshots()));
    builder.addStateStore(KeyValueStores.inMemory(SERVICE_COUNTS, changelogs, serdes.serviceSnapshots()));
    builder.addStateStore(KeyValueStores.inMemory(POLICIES, changelogs, serdes.store(HealthAggregationPolicy.class)));
    builder.addStateStore(KeyValueStores.inMemory(SOURCES, changelogs, serdes.store(HealthSource.class)));
    builder.addStateStore(KeyValueStores.inMemory(COMPOSITES, changelogs, serdes.store(CompositeHealthCheck.class)));
    builder.addStateStore(KeyValueStores.inMemory(FORWARDING_RULES, changelogs, serdes.store(ForwardingRule.class)));
    builder.addStateStore(KeyValueStores.inMemory(CONFIG_OFFSETS, changelogs, Serdes.Long()));
    builder.addStateStore(KeyValueStores.inMemory(FAILOVERS, changelogs, serdes.failovers()));
    builder.addStateStore(KeyValueStores.inMemory(PUBLISHED, changelogs, serdes.healthStates()));
  }

  /** The stores the stage's processor uses. */
  public static String[] names() {
    return new String[] {SERVICES, SERVICE_COUNTS, POLICIES, SOURCES, COMPOSITES, FORWARDING_RULES, CONFIG_OFFSETS,
        FAILOVERS, PUBLISHED};
  }
}
