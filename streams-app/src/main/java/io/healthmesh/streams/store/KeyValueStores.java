package io.healthmesh.streams.store;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/** How every store of the topology is built. */
public final class KeyValueStores {
  private static final StringSerializer KEYS = new StringSerializer();
  private KeyValueStores() {}

  /**
   * Changelogged, so a restarted instance resumes exactly where it stopped, with a cache that
   * folds a key's many writes between two commits (a service's counts as its endpoints flip one
   * after another) into one changelog record. In memory: the processors read their tables from
   * heap mirrors, so a store is only written and restored, and in memory both cost least (our
   * {@link SkipListStore}, whose iterators serve interactive queries without copying keys; and
   * under exactly-once a persistent store would still be restored whole after kill -9, see
   * docs/architecture.md). For an offline replay, no changelog at all: nothing restarts.
   */
  public static <V> StoreBuilder<KeyValueStore<String, V>> inMemory(String name, boolean changelogs, Serde<V> values) {
    StoreBuilder<KeyValueStore<String, V>> builder =
        Stores.keyValueStoreBuilder(SkipListStore.supplier(name), Serdes.String(), values);
    return changelogs ? builder.withCachingEnabled() : builder.withLoggingDisabled();
  }

  /** This instance's view of a store for interactive queries: every local active task's. */
  public static <V> ReadOnlyKeyValueStore<String, V> queryable(KafkaStreams streams, String name) {
    return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<String, V>keyValueStore()));
  }

  /** The entries whose keys start with {@code prefix}; all of them for "" (which Kafka's prefix scan refuses). */
  public static <V> KeyValueIterator<String, V> startingWith(ReadOnlyKeyValueStore<String, V> store, String prefix) {
    return prefix.isEmpty() ? store.all() : store.prefixScan(prefix, KEYS);
  }
}
