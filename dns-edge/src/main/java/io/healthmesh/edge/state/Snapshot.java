package io.healthmesh.edge.state;

import io.healthmesh.edge.policy.Access;
import io.healthmesh.edge.policy.Policies;
import io.healthmesh.edge.policy.RuleEntry;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.Name;

/**
 * Everything an edge answers from, immutable: swapped whole on every change, so a query never
 * waits for an update and never sees half of one. Consecutive snapshots share every zone, name
 * and record set that did not change between them.
 *
 * @param ready false until the edge has read its topics to the end once
 * @param version grows with every change; a zone's SOA serial is the version that last changed it
 * @param offsets topic-partition offsets this snapshot answers from (staleness, audit)
 * @param wire the A and AAAA record sets by wire-format owner name, for the fast path
 * @param policies the response and server policies (R-RP-1, R-SP-1)
 */
public record Snapshot(boolean ready, long version, List<Zone> zones, Map<String, Long> offsets, long builtAtMillis,
    WireIndex wire, Policies policies) {

  /** Longest origin first, so that the most specific zone answers; then by name, so the order is always the same. */
  static final Comparator<Zone> MOST_SPECIFIC_FIRST = Comparator.comparingInt((Zone z) -> -z.origin().labels())
      .thenComparing(z -> z.config().getName());

  public static final Snapshot NOT_READY = new Snapshot(false, 0, List.of(), Map.of(), 0, WireIndex.EMPTY,
      Policies.NONE);

  public Snapshot {
    zones = zones.stream().sorted(MOST_SPECIFIC_FIRST).toList();
    offsets = Map.copyOf(offsets);
  }

  /** The zone that serves {@code name}, or null. */
  public Zone zoneFor(Name name) {
    return mostSpecific(zones, name);
  }

  /**
   * The way a query for {@code qname} from {@code access} goes: a rule of its response policy
   * (unless the rule bypasses), else the zone that serves the name if it admits the client (a
   * client admitted inbound stands for its server policy's networks), else a forward, else REFUSED.
   */
  public Route route(Access access, Name qname) {
    RuleEntry rule = access.responsePolicy() == null ? null : access.responsePolicy().match(qname);
    if (rule != null && !rule.bypasses()) {
      return new Route.ByRule(rule);
    }
    Zone zone = zoneFor(qname);
    boolean admitted = zone != null
        && (access.inbound() ? zone.access().allows(access.standsFor()) : zone.allows(access.client()));
    if (admitted && zone.forwarding().isEmpty()) {
      return new Route.ByZone(zone);
    }
    if (admitted) {
      return new Route.Forwarded(zone.forwarding(), zone);
    }
    return access.forwards() ? new Route.Forwarded(access.serverPolicy().alternatives(), null) : new Route.Refused(zone);
  }

  /** Record sets served, over every zone. */
  public long recordSets() {
    long count = 0;
    for (Zone zone : zones) {
      count += zone.recordSets();
    }
    return count;
  }

  /** @param zones most specific first */
  static Zone mostSpecific(List<Zone> zones, Name name) {
    for (Zone zone : zones) {
      if (name.subdomain(zone.origin())) {
        return zone;
      }
    }
    return null;
  }
}
