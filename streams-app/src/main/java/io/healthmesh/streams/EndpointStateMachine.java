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
    // Plain constructors, not Avro builders: builders deep-copy every field, and this runs per probe.
    HealthStatus before = previous == null ? HealthStatus.UNKNOWN : previous.getStatus();
    int successes = success ? (previous == null ? 0 : previous.getConsecutiveSuccesses()) + 1 : 0;
    int failures = success ? 0 : (previous == null ? 0 : previous.getConsecutiveFailures()) + 1;
    HealthStatus status = before;
    if (success && successes >= spec.getHealthyThreshold()) {
      status = HealthStatus.HEALTHY;
    } else if (!success && failures >= spec.getUnhealthyThreshold()) {
      status = HealthStatus.UNHEALTHY;
    }
    boolean changed = status != before;
    Instant since = previous == null || changed ? eventTime : previous.getSince();
    long version = previous == null ? 0 : previous.getVersion();
    return new EndpointRecord(status, since, successes, failures, eventTime,
        eventTime.toEpochMilli() + staleAfterMillis(spec), changed ? version + 1 : version,
        previous == null ? 0L : previous.getIndexedExpiry());
  }

  /** R-EP-4: no result until {@code expiry}: UNKNOWN, and the counting starts over. */
  static EndpointRecord stale(EndpointRecord current, long expiry) {
    boolean changed = current.getStatus() != HealthStatus.UNKNOWN;
    return new EndpointRecord(HealthStatus.UNKNOWN, changed ? Instant.ofEpochMilli(expiry) : current.getSince(), 0, 0,
        current.getLastEventTime(), 0L, changed ? current.getVersion() + 1 : current.getVersion(), 0L);
  }

  /** The same record, noted as sitting in the stale index under {@code indexedExpiry}. */
  static EndpointRecord withIndexedExpiry(EndpointRecord r, long indexedExpiry) {
    return new EndpointRecord(r.getStatus(), r.getSince(), r.getConsecutiveSuccesses(), r.getConsecutiveFailures(),
        r.getLastEventTime(), r.getExpiresAt(), r.getVersion(), indexedExpiry);
  }
}
