package io.healthmesh.streams.endpoint;

import io.healthmesh.config.FlapDamping;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.HealthStatus;
import java.util.Arrays;

/**
 * R-EP-2..5: how one endpoint's results become its state: in the order of their event times,
 * stale by their record times (the broker's), never by the wall clock; with R-OP-3's dwell time
 * and flap damping, by the same event times, so a replay decides the same.
 */
final class EndpointStateMachine {
  private EndpointStateMachine() {}

  /** How long without a result before an endpoint is UNKNOWN (R-EP-4). */
  static long staleAfterMillis(HealthCheckSpec spec) {
    return (long) spec.getStaleAfterIntervals() * spec.getCheckIntervalSec() * 1000L;
  }

  /**
   * R-EP-5, per prober (R-PQ-1): a result older than the same prober's last applied one is never
   * applied; {@code state} null: none applied.
   */
  static boolean isOutOfOrder(EndpointState state, String prober, long eventTime) {
    if (state == null) {
      return false;
    }
    if (state.probers == null) {
      return state.prober.equals(prober) && eventTime < state.lastEventTime;
    }
    Quorum.View view = Quorum.find(state.probers, prober);
    return view != null && eventTime < view.lastEventTime;
  }

  /** Why a result, or the lack of one, changed the published status, for the transition's cause. */
  enum Change {
    /** Thresholds reached (R-EP-2), or the probers' quorum moved (R-PQ-2), published at once as the seed does. */
    THRESHOLD,
    /** Published after the state was held for the minimum dwell time (R-OP-3). */
    DWELLED,
    /** Held UNHEALTHY: it went UNHEALTHY more often than flap damping allows (R-OP-3). */
    SUPPRESSED,
    /** Its suppression ran out and it is published as its results say (R-OP-3). */
    RELEASED,
    /** No fresh result from any prober (R-EP-4). */
    STALE
  }

  /**
   * Applies one result of {@code prober} to {@code state}; {@code first} when no result was
   * applied before, so the state is UNKNOWN until enough results arrive (R-EP-3). Its record
   * time starts the wait after which the prober's view is stale without a new result. While one
   * prober counts, its results are the endpoint's as without quorum (R-PQ-3); a second fresh
   * prober starts the quorum (R-PQ-1, R-PQ-2).
   *
   * @return why the published status changed, or null when it did not
   */
  static Change apply(EndpointState state, boolean first, String prober, boolean success, long eventTime,
      long recordTime, HealthCheckSpec spec) {
    long expiresAt = recordTime + staleAfterMillis(spec);
    HealthStatus next;
    if (state.probers == null && (first || state.expiresAt == 0 || state.prober.equals(prober))
        && Quorum.singleProberDecides(spec)) {
      state.prober = prober;
      next = alone(state, success, spec);
      state.lastEventTime = eventTime;
      state.expiresAt = expiresAt;
    } else {
      next = quorum(state, first, prober, success, eventTime, recordTime, expiresAt, spec);
    }
    return settle(state, next, first, eventTime, spec);
  }

  /** R-EP-2, R-EP-3 on one prober's results: the seed's rule, and the hot path. */
  private static HealthStatus alone(EndpointState state, boolean success, HealthCheckSpec spec) {
    state.successes = success ? more(state.successes) : 0;
    state.failures = success ? 0 : more(state.failures);
    return reach(success, state.successes, state.failures, reached(state), spec);
  }

  /** A count in a row, one more, never past the largest int. */
  static int more(int count) {
    return (int) Math.min(Integer.MAX_VALUE, count + 1L);
  }

  /**
   * R-EP-2, R-EP-3, the one place they are decided, for an endpoint and for a prober's view of it:
   * the state {@code success}'s counts reach, or {@code before} while no threshold is.
   */
  static HealthStatus reach(boolean success, int successes, int failures, HealthStatus before, HealthCheckSpec spec) {
    if (success && successes >= spec.getHealthyThreshold()) {
      return HealthStatus.HEALTHY;
    } else if (!success && failures >= spec.getUnhealthyThreshold()) {
      return HealthStatus.UNHEALTHY;
    }
    return before;
  }

  /** What the results have reached, published or waiting for its dwell time. */
  private static HealthStatus reached(EndpointState state) {
    return state.damping == null || state.damping.pending == null ? state.status : state.damping.pending;
  }

  /** R-PQ-1, R-PQ-2: the result moves its prober's view; the fresh views decide. */
  private static HealthStatus quorum(EndpointState state, boolean first, String prober, boolean success,
      long eventTime, long recordTime, long expiresAt, HealthCheckSpec spec) {
    if (state.probers == null) {
      state.probers = first || state.expiresAt == 0 ? new Quorum.View[0] : new Quorum.View[] {soleView(state)};
      state.prober = "";
    }
    Quorum.View[] fresh = Quorum.freshAt(state.probers, recordTime);
    Quorum.View view = Quorum.find(fresh, prober);
    if (view == null) {
      view = new Quorum.View(prober);
      fresh = Quorum.with(fresh, view);
    }
    view.apply(success, eventTime, expiresAt, spec);
    state.probers = fresh;
    state.successes = view.successes;
    state.failures = view.failures;
    state.lastEventTime = Math.max(state.lastEventTime, eventTime);
    state.expiresAt = Quorum.nextExpiry(fresh);
    return Quorum.decide(fresh, spec);
  }

  /** The view of the prober that counted alone until now: its counts, and the state they reached. */
  private static Quorum.View soleView(EndpointState state) {
    Quorum.View view = new Quorum.View(state.prober);
    view.status = reached(state);
    view.successes = state.successes;
    view.failures = state.failures;
    view.lastEventTime = state.lastEventTime;
    view.expiresAt = state.expiresAt;
    return view;
  }

  /** Publishes {@code next} at once, or as R-OP-3's dwell time and damping allow. */
  private static Change settle(EndpointState state, HealthStatus next, boolean first, long eventTime,
      HealthCheckSpec spec) {
    HealthStatus published = state.status;
    Change change;
    if (spec.getMinDwellSec() == 0 && spec.getFlapDamping() == null && state.damping == null) {
      change = next != published ? Change.THRESHOLD : null; // the seed's behaviour, and the hot path
      state.moveTo(next);
    } else {
      change = damped(state, next, eventTime, spec);
    }
    if (first || change != null) {
      state.since = eventTime;
    }
    if (change != null) {
      state.version++;
    }
    return change;
  }

  /**
   * Its expiry came without a new result. While one prober counts, or when no prober's view is
   * fresh any more, it is stale (R-EP-4); otherwise the views that went stale drop out and the
   * rest decide again (R-PQ-1), at the time the last of them went.
   *
   * @param spec its health check; null when its configuration is gone, and then it is stale
   * @return why the published status changed, or null when it did not
   */
  static Change expire(EndpointState state, long now, HealthCheckSpec spec) {
    if (state.probers != null) {
      Quorum.View[] fresh = Quorum.freshAt(state.probers, now);
      long wentAt = 0;
      for (Quorum.View v : state.probers) {
        wentAt = v.expiresAt <= now ? Math.max(wentAt, v.expiresAt) : wentAt;
      }
      if (fresh.length > 0 && spec != null) {
        state.probers = fresh;
        state.expiresAt = Quorum.nextExpiry(fresh);
        return settle(state, Quorum.decide(fresh, spec), false, wentAt, spec);
      }
      state.probers = null;
      state.expiresAt = wentAt;
    }
    return stale(state) ? Change.STALE : null;
  }

  /** R-OP-3: {@code next} is what the results say; what is published waits for the dwell time and suppression. */
  private static Change damped(EndpointState state, HealthStatus next, long eventTime, HealthCheckSpec spec) {
    HealthStatus published = state.status;
    if (state.damping == null && next == published) {
      return null; // nothing waits and nothing is held: no allocation on the common path
    }
    EndpointState.Damping d = state.damping == null ? new EndpointState.Damping() : state.damping;
    if (next == published) {
      d.pending = null; // reverted within the dwell time: nothing to publish
    } else if (d.pending != next) {
      d.pending = next;
      d.pendingSince = eventTime;
    }
    boolean released = d.suppressedUntil != 0 && eventTime >= d.suppressedUntil;
    if (released) {
      d.suppressedUntil = 0;
      d.lastSuppressionEnd = eventTime;
    }
    long dwell = spec.getMinDwellSec() * 1000L;
    // A pending state always differs from the published one, so publishing it is a change; one
    // held through a suppression has been held long enough.
    Change change = null;
    if (d.suppressedUntil == 0 && d.pending != null && (released || eventTime - d.pendingSince >= dwell)) {
      HealthStatus target = d.pending;
      d.pending = null;
      boolean suppressed = target == HealthStatus.UNHEALTHY && spec.getFlapDamping() != null
          && failedTooOften(d, eventTime, spec.getFlapDamping());
      change = suppressed ? Change.SUPPRESSED : released ? Change.RELEASED : dwell > 0 ? Change.DWELLED : Change.THRESHOLD;
      state.moveTo(target);
    }
    state.damping = d.idle() ? null : d;
    return change;
  }

  /**
   * Notes that it goes UNHEALTHY at {@code now}; true when that is more often than {@code f} allows,
   * and then starts a suppression, doubled for each one that follows within the window of the last.
   */
  private static boolean failedTooOften(EndpointState.Damping d, long now, FlapDamping f) {
    long window = f.getWindowSec() * 1000L;
    long[] kept = Arrays.stream(d.failures).filter(t -> now - t < window).toArray();
    long[] failures = Arrays.copyOf(kept, kept.length + 1);
    failures[kept.length] = now;
    if (failures.length <= f.getMaxFailures()) {
      d.failures = failures;
      return false;
    }
    d.failures = new long[0];
    d.suppressions = d.lastSuppressionEnd != 0 && now - d.lastSuppressionEnd < window ? d.suppressions + 1 : 1;
    long seconds = Math.min(f.getMaxSuppressSec(), (long) f.getSuppressSec() << Math.min(d.suppressions - 1, 30));
    d.suppressedUntil = now + seconds * 1000L;
    return true;
  }

  /** How long the suppression under way holds, for its cause. */
  static long suppressedForMillis(EndpointState state) {
    return state.damping == null ? 0 : state.damping.suppressedUntil - state.lastEventTime;
  }

  /** R-EP-4: no result until its expiry: UNKNOWN, and the counting starts over. Returns whether the status changed. */
  static boolean stale(EndpointState state) {
    boolean changed = state.status != HealthStatus.UNKNOWN;
    if (state.damping != null) {
      // Nothing is known any more: no state waits to be published and none is held; the count of
      // failures stays, so an endpoint cannot escape its damping by going quiet.
      state.damping.pending = null;
      state.damping.suppressedUntil = 0;
    }
    if (changed) {
      state.since = state.expiresAt;
      state.version++;
    }
    state.moveTo(HealthStatus.UNKNOWN);
    state.successes = 0;
    state.failures = 0;
    state.expiresAt = 0;
    return changed;
  }
}
