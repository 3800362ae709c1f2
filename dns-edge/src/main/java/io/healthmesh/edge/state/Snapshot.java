package io.healthmesh.edge.state;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.Name;

/**
 * Everything an edge answers from, immutable: swapped whole on every change, so a query never
 * waits for an update and never sees half of one.
 *
 * @param ready false until the edge has read its topics to the end once
 * @param version grows with every change; the zones' SOA serial
 * @param offsets topic-partition offsets this snapshot answers from (staleness, audit)
 * @param wire the A and AAAA record sets by wire-format owner name, for the fast path
 */
public record Snapshot(boolean ready, long version, List<Zone> zones, Map<String, Long> offsets, long builtAtMillis,
    WireIndex wire) {

  public static final Snapshot NOT_READY = new Snapshot(false, 0, List.of(), Map.of(), 0);

  public Snapshot(boolean ready, long version, List<Zone> zones, Map<String, Long> offsets, long builtAtMillis) {
    this(ready, version, mostSpecificFirst(zones), offsets, builtAtMillis, WireIndex.of(mostSpecificFirst(zones)));
  }

  public Snapshot {
    zones = mostSpecificFirst(zones);
    offsets = Map.copyOf(offsets);
  }

  /** Longest origin first: the most specific zone answers. */
  private static List<Zone> mostSpecificFirst(List<Zone> zones) {
    return zones.stream().sorted(Comparator.comparingInt((Zone z) -> -z.origin().labels())).toList();
  }

  /** The zone that serves {@code name}, or null. */
  public Zone zoneFor(Name name) {
    for (Zone zone : zones) {
      if (name.subdomain(zone.origin())) {
        return zone;
      }
    }
    return null;
  }
}
