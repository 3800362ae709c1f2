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
   * Changelogged, so a restarted instance resumes exactly where it stopped, with a cache that
   * folds a key's many writes between two commits (a service's counts as its endpoints flip one
   * after another) into one changelog record. In memory: the processors read their tables from
   * heap mirrors, so a store is only written and restored, and in memory both cost least (and
   * under exactly-once a persistent store would still be restored whole after kill -9, see
   * docs/architecture.md). For an offline replay, no changelog at all: nothing restarts.
   */
  public static <V> StoreBuilder<KeyValueStore<String, V>> inMemory(String name, boolean changelogs, Serde<V> values) {
    StoreBuilder<KeyValueStore<String, V>> builder =
        Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), values);
    return changelogs ? builder.withCachingEnabled() : builder.withLoggingDisabled();
  }
}
