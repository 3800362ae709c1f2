package io.healthmesh.streams;

import io.healthmesh.events.TransitionCause;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.streams.DeadLetters.Origin;

/** How both stages write the cause of a transition (R-CH-9, R-AUD-1), so they read alike. */
final class Causes {
  private Causes() {}

  /** A cause naming the record that triggered it, where that record is known. */
  static TransitionCause.Builder of(TransitionReason reason, Origin origin) {
    TransitionCause.Builder cause = TransitionCause.newBuilder().setReason(reason);
    if (!origin.topic().isEmpty()) {
      cause.setTriggerTopic(origin.topic());
    }
    if (origin.offset() >= 0) {
      cause.setTriggerPartition(origin.partition()).setTriggerOffset(origin.offset());
    }
    return cause;
  }

  /** "3 of 4 endpoints HEALTHY (0 UNKNOWN); needs 75% and 3 under policy strict (R-AGG-2, R-AGG-3)". */
  static String detail(Aggregation.Counts c, Aggregation.Thresholds t, String rule) {
    return c.healthy() + " of " + c.total() + " endpoints HEALTHY (" + c.unknown() + " UNKNOWN); needs "
        + t.healthyPercent() + "% and " + t.minHealthy() + " under " + rule;
  }

  /** Why an endpoint's state changed (R-EP-2, R-EP-4, R-OP-3), said as its transition's detail. */
  static String endpointDetail(EndpointState s, EndpointStateMachine.Change change, io.healthmesh.config.HealthCheckSpec spec) {
    if (change == null) {
      return "no result for " + java.time.Duration.ofMillis(EndpointStateMachine.staleAfterMillis(spec)) + " (R-EP-4)";
    }
    String thresholds = s.status + " after " + Math.max(s.successes, s.failures) + " consecutive "
        + (s.successes > 0 ? "successes" : "failures");
    return switch (change) {
      case THRESHOLD -> thresholds + " (R-EP-2)";
      case DWELLED -> thresholds + ", held at least " + spec.getMinDwellSec() + " s (R-EP-2, R-OP-3)";
      case SUPPRESSED -> "UNHEALTHY more than " + spec.getFlapDamping().getMaxFailures() + " times in "
          + spec.getFlapDamping().getWindowSec() + " s: held UNHEALTHY for "
          + EndpointStateMachine.suppressedForMillis(s) / 1000 + " s, suppression " + s.damping.suppressions + " (R-OP-3)";
      case RELEASED -> "suppression ended; " + thresholds + " (R-OP-3)";
    };
  }

  /**
   * "2 of 3 sources HEALTHY, 1 UNHEALTHY, 0 UNKNOWN (R-CH-4)", and under another style or with
   * critical sources "...; needs 2 HEALTHY (AT_LEAST_N), critical db HEALTHY (R-OP-4)".
   */
  static String compositeDetail(Aggregation.Counts c, Aggregation.Style style, java.util.List<String> critical) {
    String counts = c.healthy() + " of " + c.total() + " sources HEALTHY, " + c.unhealthy() + " UNHEALTHY, "
        + c.unknown() + " UNKNOWN";
    if (style.name().equals("ALL") && critical.isEmpty()) {
      return counts + " (R-CH-4)";
    }
    StringBuilder b = new StringBuilder(counts).append("; needs ").append(style.required()).append(" HEALTHY (")
        .append(style.name()).append(')');
    for (int i = 0; i < critical.size(); i++) {
      b.append(i == 0 ? ", critical " : ", ").append(critical.get(i)).append(' ').append(style.critical().get(i));
    }
    return b.append(" (R-OP-4)").toString();
  }
}
