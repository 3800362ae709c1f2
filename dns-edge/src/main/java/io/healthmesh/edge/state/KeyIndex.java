package io.healthmesh.edge.state;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Record-set keys by what they belong to (a target they check, a zone, a slot they claim). Most
 * targets and slots have one key, so a lone key is stored as itself and only a shared one gets a
 * set: at 200,000 targets that saves a set each. Keys are kept sorted, so that of several keys
 * claiming one slot the same one always wins, whatever the order they came in.
 */
final class KeyIndex<T> {
  private final Map<T, Object> keys = new HashMap<>();

  void add(T on, String key) {
    keys.merge(on, key, (had, added) -> {
      if (had instanceof String s) {
        return s.equals(added) ? s : new TreeSet<>(List.of(s, (String) added));
      }
      cast(had).add((String) added);
      return had;
    });
  }

  void remove(T on, String key) {
    keys.computeIfPresent(on, (t, had) -> {
      if (had instanceof String s) {
        return s.equals(key) ? null : s;
      }
      TreeSet<String> set = cast(had);
      set.remove(key);
      return set.size() == 1 ? set.first() : set;
    });
  }

  Collection<String> get(T on) {
    Object had = keys.get(on);
    return had == null ? List.of() : had instanceof String s ? List.of(s) : cast(had);
  }

  /** The smallest key, or null when there is none. */
  String first(T on) {
    Object had = keys.get(on);
    return had == null ? null : had instanceof String s ? s : cast(had).first();
  }

  @SuppressWarnings("unchecked")
  private static TreeSet<String> cast(Object o) {
    return (TreeSet<String>) o;
  }
}
