package io.healthmesh.streams.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A changelogged store with its decoded values mirrored on the heap. The store stays the truth
 * that survives crashes and moves with the task; the mirror, loaded when the task starts, spares
 * the hot path a store read and an Avro decode. Only for tables that fit in memory; iteration is
 * in key order, like the store's, so replays agree. Reverse indexes ({@link #index}) answer "who
 * refers to X" without a scan; they are derived, so never stored, and a stored value is never
 * changed in place.
 */
public final class MirroredStore<V> {
  private final KeyValueStore<String, V> store;
  private final TreeMap<String, V> mirror = new TreeMap<>();
  private final List<Index<V>> indexes = new ArrayList<>();

  public MirroredStore(ProcessorContext<?, ?> context, String name) {
    this.store = context.getStateStore(name);
    try (KeyValueIterator<String, V> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, V> kv = it.next();
        mirror.put(kv.key, kv.value);
      }
    }
  }

  /**
   * An index of this store's keys by what {@code refersTo} says each value refers to; kept up to
   * date by every put and delete from now on.
   */
  public Index<V> index(Function<V, Collection<String>> refersTo) {
    Index<V> index = new Index<>(refersTo);
    mirror.forEach(index::add);
    indexes.add(index);
    return index;
  }

  public V get(String key) {
    return mirror.get(key);
  }

  public void put(String key, V value) {
    store.put(key, value);
    V old = mirror.put(key, value);
    for (Index<V> index : indexes) {
      index.remove(key, old);
      index.add(key, value);
    }
  }

  /** {@code value} null deletes. */
  public void putOrDelete(String key, V value) {
    if (value == null) {
      delete(key);
    } else {
      put(key, value);
    }
  }

  public V delete(String key) {
    store.delete(key);
    V old = mirror.remove(key);
    for (Index<V> index : indexes) {
      index.remove(key, old);
    }
    return old;
  }

  /** Entries whose key starts with {@code prefix}, in key order. */
  public Map<String, V> prefix(String prefix) {
    return Collections.unmodifiableMap(mirror.subMap(prefix, true, prefix + Character.MAX_VALUE, true));
  }

  /** Keys of a store's entries by each name their values refer to. */
  public static final class Index<V> {
    private final Function<V, Collection<String>> refersTo;
    private final Map<String, NavigableSet<String>> keys = new HashMap<>();

    private Index(Function<V, Collection<String>> refersTo) {
      this.refersTo = refersTo;
    }

    /** Keys whose values refer to {@code name}, in key order (as a scan of the store would find them). */
    public NavigableSet<String> keysReferringTo(String name) {
      NavigableSet<String> found = keys.get(name);
      return found == null ? Collections.emptyNavigableSet() : Collections.unmodifiableNavigableSet(found);
    }

    private void add(String key, V value) {
      if (value != null) {
        for (String name : refersTo.apply(value)) {
          keys.computeIfAbsent(name, n -> new TreeSet<>()).add(key);
        }
      }
    }

    private void remove(String key, V value) {
      if (value == null) {
        return;
      }
      for (String name : refersTo.apply(value)) {
        NavigableSet<String> set = keys.get(name);
        if (set != null && set.remove(key) && set.isEmpty()) {
          keys.remove(name);
        }
      }
    }
  }
}
