package io.healthmesh.streams;

import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.HealthStatus;

/**
 * R-EP-2..5: how one endpoint's results become its state: in the order of their event times,
 * stale by their record times (the broker's), never by the wall clock.
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

  /**
   * Applies one result to {@code state}; {@code first} when no result was applied before, so the
   * state is UNKNOWN until enough results arrive (R-EP-3). Its record time starts the wait
   * after which the endpoint is stale without a new result.
   */
  static void apply(EndpointState state, boolean first, boolean success, long eventTime, long recordTime,
      HealthCheckSpec spec) {
    HealthStatus before = state.status;
    state.successes = success ? (int) Math.min(Integer.MAX_VALUE, state.successes + 1L) : 0;
    state.failures = success ? 0 : (int) Math.min(Integer.MAX_VALUE, state.failures + 1L);
    if (success && state.successes >= spec.getHealthyThreshold()) {
      state.status = HealthStatus.HEALTHY;
    } else if (!success && state.failures >= spec.getUnhealthyThreshold()) {
      state.status = HealthStatus.UNHEALTHY;
    }
    boolean changed = state.status != before;
    if (first || changed) {
      state.since = eventTime;
    }
    if (changed) {
      state.version++;
    }
    state.lastEventTime = eventTime;
    state.expiresAt = recordTime + staleAfterMillis(spec);
  }

  /** R-EP-4: no result until its expiry: UNKNOWN, and the counting starts over. Returns whether the status changed. */
  static boolean stale(EndpointState state) {
    boolean changed = state.status != HealthStatus.UNKNOWN;
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
