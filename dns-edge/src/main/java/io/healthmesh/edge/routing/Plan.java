package io.healthmesh.edge.routing;

import io.healthmesh.events.RoutingPolicyType;
import java.util.ArrayList;
import java.util.List;

/** How a record set answers, with the health of every address as of one snapshot. */
public sealed interface Plan {

  /** The routing policy under an all-unhealthy behaviour (R-OP-1); the plan itself otherwise. */
  default Plan routed() {
    return this;
  }

  /** The routing policy's type, as dns-decisions and audits name it. */
  default RoutingPolicyType policyType() {
    Plan plan = routed();
    return plan instanceof Wrr ? RoutingPolicyType.WRR : plan instanceof Geo ? RoutingPolicyType.GEO
        : plan instanceof Failover ? RoutingPolicyType.FAILOVER : RoutingPolicyType.NONE;
  }

  /** Every bucket the plan can choose, primary before backup; none for static records. */
  default List<Bucket> buckets() {
    Plan plan = routed();
    if (plan instanceof Wrr w) {
      return w.items();
    }
    if (plan instanceof Geo g) {
      return g.items();
    }
    if (plan instanceof Failover f) {
      List<Bucket> all = new ArrayList<>();
      all.add(f.primary());
      all.addAll(f.backup().items());
      return all;
    }
    return List.of();
  }

  /** No routing policy: always the same records. */
  record Static(List<String> rrdatas) implements Plan {}

  /** Weighted round robin (R-WRR-*). */
  record Wrr(List<Bucket> items) implements Plan {}

  /** Geolocation, optionally fenced (R-GEO-*). */
  record Geo(List<Bucket> items, boolean fencing) implements Plan {}

  /** Primary with a geolocation backup and trickle traffic (R-FO-*). */
  record Failover(Bucket primary, Geo backup, double trickle) implements Plan {}

  /**
   * A plan that does not fail open (R-OP-1): when every item of {@code plan} is unhealthy it
   * answers nothing (NODATA), or {@code fallback} when that is given.
   */
  record FailClosed(Plan plan, List<String> fallback) implements Plan {
    @Override
    public Plan routed() {
      return plan;
    }
  }
}
