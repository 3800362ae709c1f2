package io.healthmesh.streams;

import io.healthmesh.events.HealthStatus;
import java.util.Collection;

/** The aggregation rules of docs/rules.md sections 2 and 3, as pure functions of counts. */
final class Aggregation {
  /** R-AGG-1 defaults, used for a backend service's own published state. */
  static final Thresholds DEFAULT = new Thresholds(60, 1, false);
  /** R-AGG-5, R-DNSHC-2: internal passthrough NLB, no backends at all counts as healthy. */
  static final Thresholds PASSTHROUGH_LB = new Thresholds(20, 1, true);
  /** R-DNSHC-3: application and proxy LBs are healthy while one backend is healthy. */
  static final Thresholds ANY_HEALTHY = new Thresholds(0, 1, false);

  private Aggregation() {}

  /** A percent threshold, a minimum count and what an empty set of endpoints means. */
  record Thresholds(int healthyPercent, int minHealthy, boolean emptyIsHealthy) {}

  /** Endpoints of a service by state. */
  record Counts(int healthy, int unhealthy, int unknown) {
    int total() {
      return healthy + unhealthy + unknown;
    }
  }

  /**
   * R-AGG-2 and R-AGG-3: HEALTHY if both thresholds pass with every UNKNOWN counted UNHEALTHY,
   * UNHEALTHY if either fails with every UNKNOWN counted HEALTHY, UNKNOWN otherwise.
   */
  static HealthStatus status(Counts counts, Thresholds t) {
    if (counts.total() == 0 && t.emptyIsHealthy()) {
      return HealthStatus.HEALTHY;
    }
    if (passes(counts.healthy(), counts.total(), t)) {
      return HealthStatus.HEALTHY;
    }
    if (!passes(counts.healthy() + counts.unknown(), counts.total(), t)) {
      return HealthStatus.UNHEALTHY;
    }
    return HealthStatus.UNKNOWN;
  }

  private static boolean passes(int healthy, int total, Thresholds t) {
    // Integer arithmetic: 3 of 4 is exactly 75%, never 74.999...
    return (long) healthy * 100 >= (long) t.healthyPercent() * total && healthy >= t.minHealthy();
  }

  /**
   * How many more HEALTHY endpoints could fail before the thresholds fail (negative: how many are
   * missing), counting UNKNOWN endpoints as unhealthy: how close a source is to flipping.
   */
  static int margin(Counts counts, Thresholds t) {
    int required = Math.max(t.minHealthy(), (int) Math.ceil(t.healthyPercent() * counts.total() / 100.0));
    return counts.healthy() - required;
  }

  /** R-CH-4: AND over the sources, where any UNHEALTHY wins and any UNKNOWN keeps it UNKNOWN. */
  static HealthStatus all(Collection<HealthStatus> statuses) {
    if (statuses.contains(HealthStatus.UNHEALTHY)) {
      return HealthStatus.UNHEALTHY;
    }
    if (statuses.isEmpty() || statuses.contains(HealthStatus.UNKNOWN)) {
      return HealthStatus.UNKNOWN;
    }
    return HealthStatus.HEALTHY;
  }
}
