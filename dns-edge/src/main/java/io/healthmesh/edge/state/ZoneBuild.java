package io.healthmesh.edge.state;

import io.healthmesh.config.ManagedZone;
import io.healthmesh.edge.collect.ShardedMap;
import io.healthmesh.edge.policy.Networks;
import io.healthmesh.edge.policy.ServerPolicyView;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.TextParseException;

/**
 * What one zone serves, kept up to date one record set at a time by the follower thread, and
 * turned into an immutable {@link Zone} that shares all it did not change with the one before.
 * Two record sets can claim one owner and type (keys differing only in case); the smallest key
 * is served, so the answer does not depend on the order in which they arrived.
 */
final class ZoneBuild {
  /** An owner name and type: where a record set is served. */
  record Slot(Name owner, int type) {}

  private final ManagedZone config;
  private final Name origin;
  private final ZoneAccess access;
  private final Name soaHost;
  private final Name soaAdmin;
  private final KeyIndex<Slot> claims = new KeyIndex<>();
  private final Map<Name, int[]> ownersAtOrBelow = new HashMap<>();
  private Set<Name> touched = new HashSet<>();
  private ShardedMap<Name, Map<Integer, RecordSetEntry>> names = ShardedMap.empty();
  private ShardedMap<Name, Boolean> existing;
  private ShardedMap.Editor<Name, Map<Integer, RecordSetEntry>> namesEdit;
  private ShardedMap.Editor<Name, Boolean> existingEdit;
  private int recordSets;
  private Zone zone;

  ZoneBuild(ManagedZone config) throws TextParseException {
    this.config = config;
    this.origin = Name.fromString(config.getDnsName(), Name.root);
    this.access = new ZoneAccess(config.getVisibility(), Networks.parse(config.getNetworks()),
        config.getForwardingConfig() == null ? List.of()
            : ServerPolicyView.targets(config.getForwardingConfig().getTargetNameServers()));
    this.soaHost = Name.fromString("ns1", origin);
    this.soaAdmin = Name.fromString("hostmaster", origin);
    this.existing = ShardedMap.<Name, Boolean>empty().edit().put(origin, true).done();
  }

  Name origin() {
    return origin;
  }

  ZoneAccess access() {
    return access;
  }

  /** Owner names whose record sets changed since the last call. */
  Set<Name> takeTouched() {
    Set<Name> taken = touched;
    touched = new HashSet<>();
    return taken;
  }

  /** {@code key} serves at {@code slot} when {@code served} is true, and no longer when false. */
  void claim(String key, Slot slot, boolean served, Function<String, RecordSetEntry> entries) {
    if (!slot.owner().subdomain(origin)) {
      return;
    }
    if (served) {
      claims.add(slot, key);
    } else {
      claims.remove(slot, key);
    }
    String winner = claims.first(slot);
    serve(slot, winner == null ? null : entries.apply(winner));
  }

  private void serve(Slot slot, RecordSetEntry entry) {
    if (namesEdit == null) {
      namesEdit = names.edit();
    }
    Map<Integer, RecordSetEntry> types = namesEdit.get(slot.owner());
    Map<Integer, RecordSetEntry> next = new HashMap<>(types == null ? Map.of() : types);
    RecordSetEntry replaced = entry == null ? next.remove(slot.type()) : next.put(slot.type(), entry);
    if (replaced == entry) {
      return;
    }
    recordSets += (entry == null ? -1 : 0) + (replaced == null ? 1 : 0);
    touched.add(slot.owner());
    if (next.isEmpty()) {
      namesEdit.remove(slot.owner());
      walk(slot.owner(), -1);
    } else {
      namesEdit.put(slot.owner(), Map.copyOf(next));
      if (types == null) {
        walk(slot.owner(), 1);
      }
    }
  }

  /** Counts the owners at or below each name between an owner and the apex (RFC 8020 empty non-terminals). */
  private void walk(Name owner, int delta) {
    if (existingEdit == null) {
      existingEdit = existing.edit();
    }
    for (Name n = owner; n.labels() > origin.labels(); n = new Name(n, 1)) {
      int[] count = ownersAtOrBelow.computeIfAbsent(n, k -> new int[1]);
      count[0] += delta;
      if (count[0] == 0) {
        ownersAtOrBelow.remove(n);
        existingEdit.remove(n);
      } else if (count[0] == delta) {
        existingEdit.put(n, true);
      }
    }
  }

  /** The zone as of snapshot {@code version}: the previous object when nothing changed. */
  Zone finish(long version) {
    if (zone != null && namesEdit == null) {
      return zone;
    }
    if (namesEdit != null) {
      names = namesEdit.done();
      namesEdit = null;
    }
    if (existingEdit != null) {
      existing = existingEdit.done();
      existingEdit = null;
    }
    SOARecord soa = new SOARecord(origin, DClass.IN, config.getSoaMinimumTtl(), soaHost, soaAdmin, version, 3600, 600, 86400, config.getSoaMinimumTtl());
    zone = new Zone(config, origin, access, soa, names, existing, recordSets);
    return zone;
  }
}
