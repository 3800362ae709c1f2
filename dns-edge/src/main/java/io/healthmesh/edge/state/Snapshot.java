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
 */
public record Snapshot(boolean ready, long version, List<Zone> zones, Map<String, Long> offsets, long builtAtMillis) {

  public static final Snapshot NOT_READY = new Snapshot(false, 0, List.of(), Map.of(), 0);

  public Snapshot {
    // Longest origin first: the most specific zone answers.
    zones = zones.stream().sorted(Comparator.comparingInt((Zone z) -> -z.origin().labels())).toList();
    offsets = Map.copyOf(offsets);
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
