package io.healthmesh.streams;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A changelogged store with its decoded values mirrored on the heap. The store stays the truth
 * that survives crashes and moves with the task; the mirror, loaded when the task starts, spares
 * the hot path a RocksDB read and an Avro decode, and lets dependency lookups scan a map. Only
 * for tables that fit in memory; iteration is in key order, like the store's, so replays agree.
 */
final class MirroredStore<V> {
  private final KeyValueStore<String, V> store;
  private final TreeMap<String, V> mirror = new TreeMap<>();

  MirroredStore(ProcessorContext<?, ?> context, String name) {
    this.store = context.getStateStore(name);
    try (KeyValueIterator<String, V> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, V> kv = it.next();
        mirror.put(kv.key, kv.value);
      }
    }
  }

  V get(String key) {
    return mirror.get(key);
  }

  void put(String key, V value) {
    store.put(key, value);
    mirror.put(key, value);
  }

  /** {@code value} null deletes. */
  void putOrDelete(String key, V value) {
    if (value == null) {
      delete(key);
    } else {
      put(key, value);
    }
  }

  V delete(String key) {
    store.delete(key);
    return mirror.remove(key);
  }

  /** Entries whose key starts with {@code prefix}, in key order. */
  Map<String, V> prefix(String prefix) {
    return Collections.unmodifiableMap(mirror.subMap(prefix, true, prefix + Character.MAX_VALUE, true));
  }

  Map<String, V> all() {
    return Collections.unmodifiableMap(mirror);
  }
}
