package io.healthmesh.streams.endpoint;

import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.ProberQuorum;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.streams.rules.Aggregation;
import java.util.Arrays;

/**
 * R-PQ-1, R-PQ-2: each prober's own view of an endpoint, and the endpoint's state decided across
 * the fresh ones, three-valued by the same computation as a service's endpoints (R-AGG-3).
 */
final class Quorum {
  /** R-PQ-2's defaults: half the fresh probers, at least one, so one prober decides alone. */
  static final ProberQuorum DEFAULT = ProberQuorum.newBuilder().build();

  private Quorum() {}

  static ProberQuorum of(HealthCheckSpec spec) {
    return spec.getProberQuorum() == null ? DEFAULT : spec.getProberQuorum();
  }

  /** Whether one prober's view decides alone, as without quorum (R-PQ-3). */
  static boolean singleProberDecides(HealthCheckSpec spec) {
    return of(spec).getMinProbers() <= 1;
  }

  /** One prober's own view of one endpoint: its R-EP-2..5 on its results alone (R-PQ-1). */
  static final class View {
    final String prober;
    HealthStatus status = HealthStatus.UNKNOWN;
    int successes;
    int failures;
    long lastEventTime;
    /** Record time at which it drops out of the count without a new result. */
    long expiresAt;

    View(String prober) {
      this.prober = prober;
    }

    /** Counts one result and moves the view when a threshold is reached; UNKNOWN until one is (R-EP-2, R-EP-3). */
    void apply(boolean success, long eventTime, long expiresAt, HealthCheckSpec spec) {
      successes = success ? EndpointStateMachine.more(successes) : 0;
      failures = success ? 0 : EndpointStateMachine.more(failures);
      status = EndpointStateMachine.reach(success, successes, failures, status, spec);
      this.lastEventTime = eventTime;
      this.expiresAt = expiresAt;
    }

    @Override
    public String toString() {
      return prober + "=" + status + ":" + successes + ":" + failures + ":" + lastEventTime + ":" + expiresAt;
    }
  }

  /** The view of {@code prober} among {@code views}, or null. Linear: an endpoint has a handful of probers. */
  static View find(View[] views, String prober) {
    for (View v : views) {
      if (v.prober.equals(prober)) {
        return v;
      }
    }
    return null;
  }

  static View[] with(View[] views, View added) {
    View[] more = Arrays.copyOf(views, views.length + 1);
    more[views.length] = added;
    return more;
  }

  /** The views still fresh at {@code now}: {@code views} itself when none went stale, as nearly always. */
  static View[] freshAt(View[] views, long now) {
    for (View v : views) {
      if (v.expiresAt <= now) {
        return Arrays.stream(views).filter(w -> w.expiresAt > now).toArray(View[]::new);
      }
    }
    return views;
  }

  /** The earliest time a view drops out; the endpoint is looked at again then. */
  static long nextExpiry(View[] views) {
    long next = Long.MAX_VALUE;
    for (View v : views) {
      next = Math.min(next, v.expiresAt);
    }
    return next;
  }

  /** The views by state. */
  static Aggregation.Counts count(View[] views) {
    int healthy = 0;
    int unhealthy = 0;
    for (View v : views) {
      healthy += v.status == HealthStatus.HEALTHY ? 1 : 0;
      unhealthy += v.status == HealthStatus.UNHEALTHY ? 1 : 0;
    }
    return new Aggregation.Counts(healthy, unhealthy, views.length - healthy - unhealthy);
  }

  /**
   * R-PQ-2: UNKNOWN with fewer fresh views than the minimum; otherwise R-AGG-3's three values at
   * the quorum's percent, so that one view decides exactly as that view says.
   */
  static HealthStatus decide(View[] fresh, HealthCheckSpec spec) {
    ProberQuorum q = of(spec);
    if (fresh.length == 0 || fresh.length < q.getMinProbers()) {
      return HealthStatus.UNKNOWN;
    }
    return Aggregation.status(count(fresh), new Aggregation.Thresholds(q.getHealthyPercent(), 1, false));
  }

  /** "2 of 3 probers see it HEALTHY (0 UNKNOWN); needs 50% of at least 1 fresh (R-PQ-2)". */
  static String describe(View[] fresh, HealthCheckSpec spec) {
    ProberQuorum q = of(spec);
    Aggregation.Counts c = count(fresh);
    return c.healthy() + " of " + c.total() + " probers see it HEALTHY (" + c.unknown() + " UNKNOWN); needs "
        + q.getHealthyPercent() + "% of at least " + q.getMinProbers() + " fresh (R-PQ-2)";
  }
}
