package io.healthmesh.streams.endpoint;

import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProberView;
import io.healthmesh.events.TransitionCause;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.streams.codec.Origin;
import io.healthmesh.streams.output.Emitter;
import io.healthmesh.streams.output.Metrics;
import io.healthmesh.streams.rules.Aggregation;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

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
   * @param change why a result, or the lack of one, changed it; null for a first result that changed nothing
   * @param origin the result's position; null when no result changed it (R-EP-4, R-PQ-1)
   */
  void publish(Owners.Owner owner, HealthStatus before, EndpointState next, EndpointStateMachine.Change change,
      Origin origin, Instant eventTime) {
    HealthState state = HealthState.newBuilder(state(next, owner.region()))
        .setSourceOffset(origin == null ? null : origin.offset())
        // an endpoint publishes only when its status changes (or at its first result, never known)
        .setLastKnownStatus(Emitter.lastKnown(next.status, before, null)).build();
    emitter.publish(owner.entity(), before, state, () -> cause(owner, next, change, origin), eventTime);
  }

  /**
   * What an endpoint's health-state record says of it, as of its state now: the record published
   * at its last transition, and what interactive queries answer (with the counts since). Made with
   * the generated constructor: a builder copies and checks every field, which for a status of
   * 200,000 endpoints was a tenth of the topology's answer.
   */
  static HealthState state(EndpointState s, String region) {
    return new HealthState(s.status, Instant.ofEpochMilli(s.since), region, s.successes, s.failures, 0, s.version, null,
        s.lastKnown, views(s));
  }

  /** R-PQ-4: each fresh prober's view, by name; none while one prober decides. */
  private static List<ProberView> views(EndpointState s) {
    if (s.probers == null) {
      return List.of();
    }
    return Arrays.stream(s.probers).sorted(Comparator.comparing(v -> v.prober))
        .map(v -> new ProberView(v.prober, v.status, Instant.ofEpochMilli(v.lastEventTime))).toList();
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
    if (next.probers != null) {
      // R-PQ-4: decided across probers, so the counts are of probers
      Aggregation.Counts probers = Quorum.count(next.probers);
      cause.setHealthyCount(probers.healthy()).setUnhealthyCount(probers.unhealthy()).setUnknownCount(probers.unknown());
    }
    if (origin != null) {
      cause.setTriggerTopic(origin.topic()).setTriggerPartition(origin.partition()).setTriggerOffset(origin.offset());
    }
    return cause.build();
  }

  /** Why an endpoint's state changed (R-EP-2, R-EP-4, R-OP-3, R-PQ-2), said as its transition's detail. */
  private static String detail(EndpointState s, EndpointStateMachine.Change change, HealthCheckSpec spec) {
    if (change == null || change == EndpointStateMachine.Change.STALE) {
      return "no result for " + Duration.ofMillis(EndpointStateMachine.staleAfterMillis(spec)) + " (R-EP-4)";
    }
    String thresholds = s.probers != null ? s.status + ": " + Quorum.describe(s.probers, spec) + ": "
        + views(s).stream().map(v -> v.getProber() + " " + v.getStatus()).collect(Collectors.joining(", "))
        : s.status + " after " + Math.max(s.successes, s.failures) + " consecutive "
        + (s.successes > 0 ? "successes" : "failures") + " (R-EP-2)";
    return switch (change) {
      case THRESHOLD, STALE -> thresholds;
      case DWELLED -> thresholds + ", held at least " + spec.getMinDwellSec() + " s (R-OP-3)";
      case SUPPRESSED -> "UNHEALTHY more than " + spec.getFlapDamping().getMaxFailures() + " times in "
          + spec.getFlapDamping().getWindowSec() + " s: held UNHEALTHY for "
          + EndpointStateMachine.suppressedForMillis(s) / 1000 + " s, suppression " + s.damping.suppressions + " (R-OP-3)";
      case RELEASED -> "suppression ended; " + thresholds + " (R-OP-3)";
    };
  }
}
