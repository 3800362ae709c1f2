package io.healthmesh.streams;

import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.internal.EndpointRecord;
import java.time.Instant;

/** R-EP-2..5: how one endpoint's results become its state. Pure; event time only. */
final class EndpointStateMachine {
  private EndpointStateMachine() {}

  /** How long without a result before an endpoint is UNKNOWN (R-EP-4). */
  static long staleAfterMillis(HealthCheckSpec spec) {
    return (long) spec.getStaleAfterIntervals() * spec.getCheckIntervalSec() * 1000L;
  }

  /** R-EP-5: a result older than the last applied one is never applied. */
  static boolean isOutOfOrder(EndpointRecord previous, Instant eventTime) {
    return previous != null && eventTime.isBefore(previous.getLastEventTime());
  }

  /** The state after one result; {@code previous} null means no result was ever applied (R-EP-3). */
  static EndpointRecord apply(EndpointRecord previous, boolean success, Instant eventTime, HealthCheckSpec spec) {
    EndpointRecord current = previous != null ? previous : EndpointRecord.newBuilder()
        .setStatus(HealthStatus.UNKNOWN).setSince(eventTime).setLastEventTime(eventTime).build();
    int successes = success ? current.getConsecutiveSuccesses() + 1 : 0;
    int failures = success ? 0 : current.getConsecutiveFailures() + 1;
    HealthStatus status = current.getStatus();
    if (success && successes >= spec.getHealthyThreshold()) {
      status = HealthStatus.HEALTHY;
    } else if (!success && failures >= spec.getUnhealthyThreshold()) {
      status = HealthStatus.UNHEALTHY;
    }
    boolean changed = status != current.getStatus();
    return EndpointRecord.newBuilder(current)
        .setStatus(status)
        .setSince(changed ? eventTime : current.getSince())
        .setVersion(changed ? current.getVersion() + 1 : current.getVersion())
        .setConsecutiveSuccesses(successes)
        .setConsecutiveFailures(failures)
        .setLastEventTime(eventTime)
        .setExpiresAt(eventTime.toEpochMilli() + staleAfterMillis(spec))
        .build();
  }

  /** R-EP-4: no result until {@code expiry}: UNKNOWN, and the counting starts over. */
  static EndpointRecord stale(EndpointRecord current, long expiry) {
    boolean changed = current.getStatus() != HealthStatus.UNKNOWN;
    return EndpointRecord.newBuilder(current)
        .setStatus(HealthStatus.UNKNOWN)
        .setSince(changed ? Instant.ofEpochMilli(expiry) : current.getSince())
        .setVersion(changed ? current.getVersion() + 1 : current.getVersion())
        .setConsecutiveSuccesses(0)
        .setConsecutiveFailures(0)
        .setExpiresAt(0)
        .build();
  }
}
