package io.healthmesh.edge.state;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.Name;
import org.xbill.DNS.Type;

/**
 * The A and AAAA record sets of a snapshot keyed by their owner's wire-format name, so that the
 * responder's fast path finds one straight from the query bytes, without building a dnsjava
 * {@link Name} per query. Names compare without case, as DNS does (RFC 4343).
 */
public final class WireIndex {
  private final Map<Key, Owner> owners;

  /** An owner name with its zone (the most specific one serving it) and its A and AAAA record sets. */
  public record Owner(Name name, Zone zone, RecordSetEntry a, RecordSetEntry aaaa) {
    public RecordSetEntry of(int type) {
      return type == Type.A ? a : type == Type.AAAA ? aaaa : null;
    }
  }

  private WireIndex(Map<Key, Owner> owners) {
    this.owners = owners;
  }

  /** @param zones most specific first, as {@link Snapshot#zoneFor} reads them */
  static WireIndex of(List<Zone> zones) {
    Map<Key, Owner> owners = new HashMap<>();
    for (Zone zone : zones) {
      zone.names().forEach((name, types) -> {
        RecordSetEntry a = types.get(Type.A);
        RecordSetEntry aaaa = types.get(Type.AAAA);
        if ((a != null || aaaa != null) && mostSpecific(zones, name) == zone) {
          byte[] wire = name.toWireCanonical();
          owners.put(new Key(wire, 0, wire.length), new Owner(name, zone, a, aaaa));
        }
      });
    }
    return new WireIndex(Map.copyOf(owners));
  }

  private static Zone mostSpecific(List<Zone> zones, Name name) {
    for (Zone zone : zones) {
      if (name.subdomain(zone.origin())) {
        return zone;
      }
    }
    return null;
  }

  /** The owner whose uncompressed wire name is {@code bytes[from, to)}, or null. */
  public Owner find(byte[] bytes, int from, int to) {
    return owners.get(new Key(bytes, from, to));
  }

  /** A slice of bytes that hashes and compares with ASCII letters folded to lower case. */
  private static final class Key {
    private final byte[] bytes;
    private final int from;
    private final int to;
    private final int hash;

    Key(byte[] bytes, int from, int to) {
      this.bytes = bytes;
      this.from = from;
      this.to = to;
      int h = 1;
      for (int i = from; i < to; i++) {
        h = 31 * h + lower(bytes[i]);
      }
      this.hash = h;
    }

    // Length octets are at most 63, below 'A', so folding every byte never changes one.
    private static int lower(byte b) {
      return b >= 'A' && b <= 'Z' ? b + 32 : b;
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Key k) || k.to - k.from != to - from || k.hash != hash) {
        return false;
      }
      for (int i = 0; i < to - from; i++) {
        if (lower(bytes[from + i]) != lower(k.bytes[k.from + i])) {
          return false;
        }
      }
      return true;
    }
  }
}
