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

  /** R-EP-5: a result older than the last applied one is never applied; {@code state} null: none applied. */
  static boolean isOutOfOrder(EndpointState state, long eventTime) {
    return state != null && eventTime < state.lastEventTime;
  }

  /** Why a result changed the published status, for the transition's cause. */
  enum Change {
    /** Thresholds reached (R-EP-2), published at once as the seed does. */
    THRESHOLD,
    /** Published after the state was held for the minimum dwell time (R-OP-3). */
    DWELLED,
    /** Held UNHEALTHY: it went UNHEALTHY more often than flap damping allows (R-OP-3). */
    SUPPRESSED,
    /** Its suppression ran out and it is published as its results say (R-OP-3). */
    RELEASED
  }

  /**
   * Applies one result to {@code state}; {@code first} when no result was applied before, so the
   * state is UNKNOWN until enough results arrive (R-EP-3). Its record time starts the wait
   * after which the endpoint is stale without a new result.
   *
   * @return why the published status changed, or null when it did not
   */
  static Change apply(EndpointState state, boolean first, boolean success, long eventTime, long recordTime,
      HealthCheckSpec spec) {
    HealthStatus published = state.status;
    HealthStatus reached = state.damping == null || state.damping.pending == null ? published : state.damping.pending;
    state.successes = success ? (int) Math.min(Integer.MAX_VALUE, state.successes + 1L) : 0;
    state.failures = success ? 0 : (int) Math.min(Integer.MAX_VALUE, state.failures + 1L);
    HealthStatus next = reached;
    if (success && state.successes >= spec.getHealthyThreshold()) {
      next = HealthStatus.HEALTHY;
    } else if (!success && state.failures >= spec.getUnhealthyThreshold()) {
      next = HealthStatus.UNHEALTHY;
    }
    state.lastEventTime = eventTime;
    state.expiresAt = recordTime + staleAfterMillis(spec);
    Change change;
    if (spec.getMinDwellSec() == 0 && spec.getFlapDamping() == null && state.damping == null) {
      change = next != published ? Change.THRESHOLD : null; // the seed's behaviour, and the hot path
      state.status = next;
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
      state.status = target;
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
    state.status = HealthStatus.UNKNOWN;
    state.successes = 0;
    state.failures = 0;
    state.expiresAt = 0;
    return changed;
  }
}
