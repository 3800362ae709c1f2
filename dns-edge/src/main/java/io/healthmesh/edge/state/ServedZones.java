package io.healthmesh.edge.state;

import io.healthmesh.config.ManagedZone;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;

/**
 * The served side of {@link EdgeState}: each zone's build, each record set's planned entry and
 * where it is served, and the fast path's wire index, kept up to date one record set at a time
 * and turned into the zones of the next snapshot.
 */
final class ServedZones {
  private static final Logger LOG = LoggerFactory.getLogger(ServedZones.class);

  /** Where a record set is served: its zone and slot, fixed by its key. */
  record Placement(String zone, ZoneBuild.Slot slot) {}

  /** What a snapshot serves: its zones, most specific first, and their wire index. */
  record Served(List<Zone> zones, WireIndex wire) {}

  private final Map<String, RecordSetEntry> entries = new HashMap<>();
  private final Map<String, Placement> placements = new HashMap<>();
  private final Map<String, ZoneBuild> builds = new HashMap<>();
  private WireIndex wire = WireIndex.EMPTY;

  /** The entry served for {@code key}, null when there is none. */
  RecordSetEntry entry(String key) {
    return entries.get(key);
  }

  /** Builds the zone again from nothing; {@code zone} null: it is no longer served. */
  void rebuild(String name, ManagedZone zone) {
    builds.remove(name);
    if (zone != null) {
      try {
        builds.put(name, new ZoneBuild(zone));
      } catch (TextParseException | RuntimeException e) {
        LOG.warn("zone {} left out of the snapshot: {}", name, e.toString());
      }
    }
  }

  /** A rebuilt zone takes the record set's entry as it is: a zone's own fields change none. */
  void reclaim(String key) {
    claim(key, placements.get(key), true);
  }

  /** Serves {@code entry} at {@code placement}, both null when the record set serves nothing now. */
  void serve(String key, RecordSetEntry entry, Placement placement) {
    Placement before = placement == null ? placements.remove(key) : placements.put(key, placement);
    if (entry == null) {
      entries.remove(key);
    } else {
      entries.put(key, entry);
    }
    if (!Objects.equals(before, placement)) {
      claim(key, before, false);
    }
    claim(key, placement, true);
  }

  /** @param zonesChanged whether a zone came, went or changed since the last snapshot */
  Served finish(long version, boolean zonesChanged) {
    List<Zone> zones = new ArrayList<>(builds.size());
    List<Name> touched = new ArrayList<>();
    for (ZoneBuild build : builds.values()) {
      zones.add(build.finish(version));
      touched.addAll(build.takeTouched());
    }
    zones.sort(Snapshot.MOST_SPECIFIC_FIRST);
    // A zone that came, went or moved can change which zone serves a name anywhere: index all again.
    wire = zonesChanged ? WireIndex.of(zones) : wire.with(touched, zones);
    return new Served(zones, wire);
  }

  /** {@code key} serves (or no longer serves) at {@code placement}, if that zone is served. */
  private void claim(String key, Placement placement, boolean served) {
    ZoneBuild build = placement == null ? null : builds.get(placement.zone());
    if (build != null) {
      build.claim(key, placement.slot(), served, entries::get);
    }
  }
}
