package io.healthmesh.edge.dnssec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.Section;

/**
 * Signatures by the exact RRset they cover (R-DNSSEC-4), shared by every answer that serves that
 * RRset: a health flip back to a subset already seen costs no signing. Entries are refreshed in
 * the background before they expire and dropped when idle or over the bound, least recently used
 * first; the query path signs only what it has never seen, or an entry already expired.
 */
final class SignatureCache {
  /** The signatures of one RRset, with each one's wire after its owner name for the fast path. */
  static final class Signed {
    final List<RRSIGRecord> sigs;
    final byte[][] tails;
    final long refreshAtMillis;
    final long expiresAtMillis;
    volatile long usedAtMillis;

    Signed(List<RRSIGRecord> sigs, long refreshAtMillis, long expiresAtMillis, long now) {
      this.sigs = List.copyOf(sigs);
      this.tails = new byte[sigs.size()][];
      for (int i = 0; i < sigs.size(); i++) {
        byte[] wire = sigs.get(i).toWire(Section.ANSWER);
        this.tails[i] = Arrays.copyOfRange(wire, sigs.get(i).getName().length(), wire.length);
      }
      this.refreshAtMillis = refreshAtMillis;
      this.expiresAtMillis = expiresAtMillis;
      this.usedAtMillis = now;
    }

    long weight() {
      long bytes = 96;
      for (int i = 0; i < tails.length; i++) {
        bytes += 2L * tails[i].length + 160; // the record and its wire
      }
      return bytes;
    }
  }

  private final Map<RRsetKey, Signed> entries = new ConcurrentHashMap<>();
  private final LongAdder hits;
  private final LongAdder misses;
  /** The zone's SOA last signed, whose signatures the next serial's replace. */
  final AtomicReference<RRsetKey> lastSoa = new AtomicReference<>();

  /** @param hits and {@code misses}: the edge's counts, shared by every zone's cache and the next one's */
  SignatureCache(LongAdder hits, LongAdder misses) {
    this.hits = hits;
    this.misses = misses;
  }

  /** The entry still valid at {@code now}, or null; marks it used. */
  Signed get(RRsetKey key, long now) {
    Signed s = entries.get(key);
    if (s == null || s.expiresAtMillis <= now) {
      misses.increment();
      return null;
    }
    hits.increment();
    if (now - s.usedAtMillis > 1000) { // a write per second at most: the hot path stays read-only
      s.usedAtMillis = now;
    }
    return s;
  }

  void put(RRsetKey key, Signed signed) {
    entries.put(key, signed);
  }

  void remove(RRsetKey key) {
    entries.remove(key);
  }

  int size() {
    return entries.size();
  }

  long bytes() {
    long total = 0;
    for (Map.Entry<RRsetKey, Signed> e : entries.entrySet()) {
      total += e.getKey().weight() + e.getValue().weight();
    }
    return total;
  }

  /**
   * Drops what was idle since {@code idleBefore} and, over {@code max}, the least recently used;
   * returns the keys whose signatures are due for refresh at {@code now}.
   */
  List<RRsetKey> sweep(long now, long idleBefore, int max) {
    entries.values().removeIf(s -> s.usedAtMillis < idleBefore || s.expiresAtMillis <= now);
    if (entries.size() > max) {
      List<Map.Entry<RRsetKey, Signed>> all = new ArrayList<>(entries.entrySet());
      all.sort(Comparator.comparingLong(e -> e.getValue().usedAtMillis));
      for (int i = 0; i < all.size() - max; i++) {
        entries.remove(all.get(i).getKey());
      }
    }
    List<RRsetKey> due = new ArrayList<>();
    entries.forEach((k, s) -> {
      if (s.refreshAtMillis <= now) {
        due.add(k);
      }
    });
    return due;
  }

  Signed peek(RRsetKey key) {
    return entries.get(key);
  }
}
