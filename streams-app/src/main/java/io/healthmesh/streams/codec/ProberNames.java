package io.healthmesh.streams.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One String per prober name (R-PQ-1): every endpoint a prober probes keeps its name, so a name
 * decoded anew for each result would cost an object per endpoint. A fleet has a handful of
 * probers, so the names last seen are compared as bytes before anything is allocated; a producer
 * inventing names cannot grow the table past its bound. Shared by the stream threads: each
 * recent name is one immutable entry, so a race loses an entry, never pairs bytes with another name.
 */
final class ProberNames {
  private static final int RECENT = 8;
  private static final int MAX_NAMES = 10_000;
  private final Recent[] recent = new Recent[RECENT];
  private final ConcurrentHashMap<String, String> names = new ConcurrentHashMap<>();
  private int next;

  /** The name in {@code b[from, from + length)}. */
  String of(byte[] b, int from, int length) {
    if (length == 0) {
      return "";
    }
    for (Recent r : recent) {
      if (r != null && Arrays.equals(r.bytes, 0, r.bytes.length, b, from, from + length)) {
        return r.name;
      }
    }
    String name = of(new String(b, from, length, StandardCharsets.UTF_8));
    int slot = next;
    recent[slot] = new Recent(Arrays.copyOfRange(b, from, from + length), name);
    next = (slot + 1) % RECENT;
    return name;
  }

  private record Recent(byte[] bytes, String name) {}

  /** The one instance of {@code name}, while the table has room. */
  String of(String name) {
    String known = names.get(name);
    if (known != null) {
      return known;
    }
    if (names.size() >= MAX_NAMES) {
      return name;
    }
    known = names.putIfAbsent(name, name);
    return known == null ? name : known;
  }
}
