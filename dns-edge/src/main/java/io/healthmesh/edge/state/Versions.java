package io.healthmesh.edge.state;

import java.util.HashMap;
import java.util.Map;

/**
 * The version of each configuration record in force, by key, with the offset it was read at (what
 * {@code config-in-force} and the snapshot's record sets name as their source).
 */
final class Versions<T> {
  private final Map<String, T> values = new HashMap<>();
  private final Map<String, Long> offsets = new HashMap<>();

  T get(String key) {
    return values.get(key);
  }

  boolean has(String key) {
    return values.containsKey(key);
  }

  /** The offset of the version in force; -1 when there is none or it was not read from a topic. */
  long offset(String key) {
    return offsets.getOrDefault(key, -1L);
  }

  /** Only the offset: {@code value} is the version in force already. */
  void offset(String key, T value, long offset) {
    put(offsets, key, value == null ? null : offset);
  }

  /** @param value null: the record is gone. @return the version it replaces, or null */
  T put(String key, T value, long offset) {
    offset(key, value, offset);
    return put(values, key, value);
  }

  private static <K, V> V put(Map<K, V> map, K key, V value) {
    return value == null ? map.remove(key) : map.put(key, value);
  }
}
