package io.healthmesh.streams.store;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/** How every store of the topology is built. */
public final class KeyValueStores {
  private KeyValueStores() {}

  /**
   * Changelogged, so a restarted instance resumes exactly where it stopped, and kept in memory:
   * these tables are small (services, rules, sources, what was last published), RocksDB's writes
   * cost more than the work around them, and the cache folds a key's many writes between two
   * commits (a service's counts as its endpoints flip one after another) into one changelog
   * record. For an offline replay, no changelog at all: nothing restarts.
   */
  public static <V> StoreBuilder<KeyValueStore<String, V>> inMemory(String name, boolean changelogs, Serde<V> values) {
    StoreBuilder<KeyValueStore<String, V>> builder =
        Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), values);
    return changelogs ? builder.withCachingEnabled() : builder.withLoggingDisabled();
  }
}
