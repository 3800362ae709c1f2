package io.healthmesh.streams;

import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.streams.aggregate.AggregateStores;
import io.healthmesh.streams.endpoint.EndpointTable;
import io.healthmesh.streams.endpoint.PerServiceStores;
import io.healthmesh.streams.store.KeyValueStores;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.BiConsumer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Gauges of entities by kind and state ({@code healthmesh_entities}), counted from this instance's
 * stores through interactive queries when scraped, at most once per {@code CACHE_MILLIS}: counting
 * where states change would need every code path that changes one to remember to count.
 */
final class EntityCounts {
  private static final long CACHE_MILLIS = 5_000;
  private final KafkaStreams streams;
  private long[][] counts = new long[EntityKind.values().length][HealthStatus.values().length];
  private long countedAt;

  private EntityCounts(KafkaStreams streams) {
    this.streams = streams;
  }

  static void register(KafkaStreams streams, MeterRegistry meters) {
    EntityCounts counts = new EntityCounts(streams);
    for (EntityKind kind : EntityKind.values()) {
      if (kind == EntityKind.OTHER) {
        continue;
      }
      for (HealthStatus status : HealthStatus.values()) {
        // strong: the gauges are all that holds the counter
        Gauge.builder("healthmesh.entities", counts, c -> c.get(kind, status)).strongReference(true)
            .description("Entities by kind and current published state, in the tasks of this instance")
            .tag("kind", kind.name()).tag("state", status.name()).register(meters);
      }
    }
  }

  private synchronized double get(EntityKind kind, HealthStatus status) {
    long now = System.currentTimeMillis();
    if (now - countedAt > CACHE_MILLIS) {
      counts = count();
      countedAt = now;
    }
    return counts[kind.ordinal()][status.ordinal()];
  }

  private long[][] count() {
    long[][] fresh = new long[EntityKind.values().length][HealthStatus.values().length];
    if (streams.state() != KafkaStreams.State.RUNNING) {
      return fresh;
    }
    try {
      this.<EndpointTable.Group>scan(PerServiceStores.ENDPOINTS, (key, group) -> group.members().forEach(s -> fresh[
          (key.startsWith("/") ? EntityKind.EXTERNAL_ENDPOINT : EntityKind.ENDPOINT).ordinal()][s.status().ordinal()]++));
      BiConsumer<String, HealthState> published = (key, s) ->
          fresh[EntityKind.valueOf(key.substring(0, key.indexOf('|'))).ordinal()][s.getStatus().ordinal()]++;
      this.scan(AggregateStores.PUBLISHED, published);
      this.scan(PerServiceStores.PUBLISHED_TARGETS, published);
    } catch (RuntimeException e) {
      return counts; // a rebalance moved the stores; keep the last figures
    }
    return fresh;
  }

  private <V> void scan(String store, BiConsumer<String, V> each) {
    ReadOnlyKeyValueStore<String, V> view = KeyValueStores.queryable(streams, store);
    try (KeyValueIterator<String, V> it = view.all()) {
      while (it.hasNext()) {
        KeyValue<String, V> kv = it.next();
        each.accept(kv.key, kv.value);
      }
    }
  }
}
