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
   * after another) into one changelog record. In memory unless the deployment asks for
   * {@link StoreKind#PERSISTENT}: the processors read their tables from heap mirrors anyway, so
   * a store is only written and restored, and in memory both cost least. For an offline replay,
   * no changelog at all: nothing restarts.
   */
  public static <V> StoreBuilder<KeyValueStore<String, V>> of(String name, Settings settings, Serde<V> values) {
    StoreBuilder<KeyValueStore<String, V>> builder = Stores.keyValueStoreBuilder(settings.kind() == StoreKind.PERSISTENT
        ? Stores.persistentKeyValueStore(name) : Stores.inMemoryKeyValueStore(name), Serdes.String(), values);
    return settings.changelogs() ? builder.withCachingEnabled() : builder.withLoggingDisabled();
  }

  /** How every store of a topology is built. */
  public record Settings(StoreKind kind, boolean changelogs) {}
}
