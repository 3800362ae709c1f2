package io.healthmesh.edge.state;

import io.healthmesh.edge.collect.ShardedMap;
import java.util.Collection;
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
  public static final WireIndex EMPTY = new WireIndex(ShardedMap.empty());

  private final ShardedMap<Key, Owner> owners;

  /** An owner name with the access rules of its zone (the most specific one serving it) and its A and AAAA record sets. */
  public record Owner(Name name, ZoneAccess zone, RecordSetEntry a, RecordSetEntry aaaa) {
    public RecordSetEntry of(int type) {
      return type == Type.A ? a : type == Type.AAAA ? aaaa : null;
    }
  }

  private WireIndex(ShardedMap<Key, Owner> owners) {
    this.owners = owners;
  }

  public int size() {
    return owners.size();
  }

  /** Every owner of the zones. @param zones most specific first, as {@link Snapshot#zoneFor} reads them */
  static WireIndex of(List<Zone> zones) {
    ShardedMap.Editor<Key, Owner> edit = ShardedMap.<Key, Owner>empty().edit();
    for (Zone zone : zones) {
      zone.names().forEach((name, types) -> {
        if (Snapshot.mostSpecific(zones, name) == zone) {
          put(edit, name, zone, types);
        }
      });
    }
    return new WireIndex(edit.done());
  }

  /** This index with the owners {@code changed} looked up again in {@code zones}. */
  WireIndex with(Collection<Name> changed, List<Zone> zones) {
    if (changed.isEmpty()) {
      return this;
    }
    ShardedMap.Editor<Key, Owner> edit = owners.edit();
    for (Name name : changed) {
      Zone zone = Snapshot.mostSpecific(zones, name);
      Map<Integer, RecordSetEntry> types = zone == null ? null : zone.types(name);
      if (types == null || !put(edit, name, zone, types)) {
        edit.remove(key(name));
      }
    }
    return new WireIndex(edit.done());
  }

  private static boolean put(ShardedMap.Editor<Key, Owner> edit, Name name, Zone zone, Map<Integer, RecordSetEntry> types) {
    RecordSetEntry a = types.get(Type.A);
    RecordSetEntry aaaa = types.get(Type.AAAA);
    if (a == null && aaaa == null) {
      return false;
    }
    edit.put(key(name), new Owner(name, zone.access(), a, aaaa));
    return true;
  }

  private static Key key(Name name) {
    byte[] wire = name.toWireCanonical();
    return new Key(wire, 0, wire.length);
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
