package io.healthmesh.streams.endpoint;

import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.TransitionCause;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.streams.codec.Origin;
import io.healthmesh.streams.output.Emitter;
import io.healthmesh.streams.output.Metrics;
import java.time.Duration;
import java.time.Instant;

/**
 * An endpoint's published state is its state machine's (R-EP-2): sent whenever its status changes,
 * and at its first result, with the transition saying which rule moved it.
 */
final class EndpointPublisher {
  private final Emitter emitter;
  private final Metrics metrics;

  EndpointPublisher(Emitter emitter, Metrics metrics) {
    this.emitter = emitter;
    this.metrics = metrics;
  }

  /**
   * @param change why a result changed it; null for staleness (R-EP-4) or a first result that changed nothing
   * @param origin the result's position; null for staleness
   */
  void publish(Owners.Owner owner, HealthStatus before, EndpointState next, EndpointStateMachine.Change change,
      Origin origin, Instant eventTime) {
    HealthState state = HealthState.newBuilder()
        .setStatus(next.status).setSince(Instant.ofEpochMilli(next.since)).setRegion(owner.region())
        .setHealthyCount(next.successes).setUnhealthyCount(next.failures)
        .setVersion(next.version).setSourceOffset(origin == null ? null : origin.offset())
        // an endpoint publishes only when its status changes (or at its first result, never known)
        .setLastKnownStatus(Emitter.lastKnown(next.status, before, null)).build();
    emitter.publish(owner.entity(), before, state, () -> cause(owner, next, change, origin), eventTime);
  }

  void removed(EntityKey entity, long timestamp) {
    emitter.delete(entity, Instant.ofEpochMilli(timestamp));
  }

  private TransitionCause cause(Owners.Owner owner, EndpointState next, EndpointStateMachine.Change change,
      Origin origin) {
    boolean damping = change == EndpointStateMachine.Change.SUPPRESSED || change == EndpointStateMachine.Change.RELEASED;
    TransitionReason reason = origin == null ? TransitionReason.STALE
        : damping ? TransitionReason.FLAP_DAMPING : TransitionReason.PROBE;
    if (reason == TransitionReason.FLAP_DAMPING) {
      metrics.flapDamping(change == EndpointStateMachine.Change.SUPPRESSED);
    }
    TransitionCause.Builder cause = TransitionCause.newBuilder().setReason(reason)
        .setHealthyCount(next.successes).setUnhealthyCount(next.failures)
        .setHealthyThreshold(owner.spec().getHealthyThreshold())
        .setUnhealthyThreshold(owner.spec().getUnhealthyThreshold())
        .setPolicyName(owner.policyName())
        .setDetail(detail(next, change, owner.spec()));
    if (origin != null) {
      cause.setTriggerTopic(origin.topic()).setTriggerPartition(origin.partition()).setTriggerOffset(origin.offset());
    }
    return cause.build();
  }

  /** Why an endpoint's state changed (R-EP-2, R-EP-4, R-OP-3), said as its transition's detail. */
  private static String detail(EndpointState s, EndpointStateMachine.Change change, HealthCheckSpec spec) {
    if (change == null) {
      return "no result for " + Duration.ofMillis(EndpointStateMachine.staleAfterMillis(spec)) + " (R-EP-4)";
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
}
