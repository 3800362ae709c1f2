package io.healthmesh.edge.state;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Record-set keys by what they depend on (a target, a zone). Most targets are checked by one
 * record set, so a lone key is stored as itself and only a shared target gets a set: at
 * 200,000 targets that saves a hash set each.
 */
final class KeyIndex<T> {
  private final Map<T, Object> keys = new HashMap<>();

  void add(T on, String key) {
    keys.merge(on, key, (had, added) -> {
      if (had instanceof String s) {
        return s.equals(added) ? s : new HashSet<>(List.of(s, (String) added));
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
      Set<String> set = cast(had);
      set.remove(key);
      return set.size() == 1 ? set.iterator().next() : set;
    });
  }

  Collection<String> get(T on) {
    Object had = keys.get(on);
    return had == null ? List.of() : had instanceof String s ? List.of(s) : cast(had);
  }

  @SuppressWarnings("unchecked")
  private static Set<String> cast(Object o) {
    return (Set<String>) o;
  }
}
