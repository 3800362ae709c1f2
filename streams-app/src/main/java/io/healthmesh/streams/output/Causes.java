package io.healthmesh.streams.output;

import io.healthmesh.events.TransitionCause;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.streams.codec.Origin;
import io.healthmesh.streams.rules.Aggregation;

/** How both stages write the cause of a transition (R-CH-9, R-AUD-1), so they read alike. */
public final class Causes {
  private Causes() {}

  /** A cause naming the record that triggered it, where that record is known. */
  public static TransitionCause.Builder of(TransitionReason reason, Origin origin) {
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
  public static String detail(Aggregation.Counts c, Aggregation.Thresholds t, String rule) {
    return c.healthy() + " of " + c.total() + " endpoints HEALTHY (" + c.unknown() + " UNKNOWN); needs "
        + t.healthyPercent() + "% and " + t.minHealthy() + " under " + rule;
  }
}
