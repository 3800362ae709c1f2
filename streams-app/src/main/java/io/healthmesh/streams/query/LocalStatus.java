package io.healthmesh.streams.query;

import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthSource;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.streams.aggregate.AggregateStores;
import io.healthmesh.streams.endpoint.EndpointRows;
import io.healthmesh.streams.endpoint.PerServiceStores;
import io.healthmesh.streams.output.Emitter;
import io.healthmesh.streams.rules.Thresholds;
import io.healthmesh.streams.store.KeyValueStores;
import java.util.function.Consumer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A status question answered from the stores of this instance's active tasks: endpoints from the
 * per-service stage's state, every other entity as last published, each kind and name prefix
 * read as one range of its store.
 */
final class LocalStatus {
  /** Where the published states of the entities that are not endpoints are kept. */
  private static final String[] PUBLISHED = {AggregateStores.PUBLISHED, PerServiceStores.PUBLISHED_TARGETS};

  private LocalStatus() {}

  /**
   * Gives {@code rows} each row as it is found, so that it can be on its way while the stores are
   * still read.
   *
   * @throws org.apache.kafka.streams.errors.InvalidStateStoreException while a rebalance moves the stores
   */
  static void rows(KafkaStreams streams, StatusQuery query, Consumer<StatusRow> rows) {
    String prefix = query.namePrefix();
    for (EntityKind kind : query.kindsAsked()) {
      if (kind == EntityKind.ENDPOINT || kind == EntityKind.EXTERNAL_ENDPOINT) {
        EndpointRows.read(streams, kind, prefix, query::matchesName,
            (key, state, thresholds) -> add(rows, query, key, state, thresholds));
        continue;
      }
      for (String store : PUBLISHED) {
        ReadOnlyKeyValueStore<String, HealthState> published = KeyValueStores.queryable(streams, store);
        try (KeyValueIterator<String, HealthState> it = KeyValueStores.startingWith(published, Emitter.recordKey(kind, prefix))) {
          while (it.hasNext()) {
            KeyValue<String, HealthState> entry = it.next();
            EntityKey key = new EntityKey(kind, entry.key.substring(entry.key.indexOf('|') + 1));
            if (query.matches(key, entry.value.getStatus())) {
              rows.accept(new StatusRow(key, entry.value, thresholds(streams, key)));
            }
          }
        }
      }
    }
  }

  /** An endpoint of the kind and name asked: its state is all that is left to test. */
  private static void add(Consumer<StatusRow> rows, StatusQuery query, EntityKey key, HealthState state,
      String thresholds) {
    if (query.matchesState(state.getStatus())) {
      rows.accept(new StatusRow(key, state, thresholds));
    }
  }

  /** From the configuration the aggregate stage judges the entity by; null for kinds without thresholds. */
  private static String thresholds(KafkaStreams streams, EntityKey key) {
    switch (key.getKind()) {
      case HEALTH_SOURCE -> {
        HealthSource source = KeyValueStores.<HealthSource>queryable(streams, AggregateStores.SOURCES).get(key.getName());
        HealthAggregationPolicy policy = source == null ? null : KeyValueStores.<HealthAggregationPolicy>queryable(streams,
            AggregateStores.POLICIES).get(source.getHealthAggregationPolicy());
        return policy == null ? null : Thresholds.of(policy);
      }
      case COMPOSITE_HEALTH_CHECK, DRY_RUN_COMPOSITE_HEALTH_CHECK -> {
        CompositeHealthCheck c = KeyValueStores.<CompositeHealthCheck>queryable(streams, AggregateStores.COMPOSITES)
            .get(key.getName());
        return c == null ? null : Thresholds.of(c);
      }
      default -> {
        return null;
      }
    }
  }

}
