package io.healthmesh.streams;

import static io.healthmesh.streams.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.schemas.Topics;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** docs/rules.md section 1: endpoint health. */
class EndpointHealthTest {
  private final Harness h = new Harness();

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void becomesHealthyOnlyAfterHealthyThresholdSuccesses_R_EP_2() {
    h.service(Harness.service("orders", 1, 3, 2));
    h.probe("orders", "vm-1", true, T0.plusSeconds(1));
    h.probe("orders", "vm-1", true, T0.plusSeconds(2));
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.UNKNOWN); // R-EP-3
    h.probe("orders", "vm-1", true, T0.plusSeconds(3));
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void becomesUnhealthyOnlyAfterUnhealthyThresholdConsecutiveFailures_R_EP_2() {
    h.service(Harness.service("orders", 1, 2, 3));
    h.probeAll("orders", List.of("vm-1"), true, 2, T0);
    h.probe("orders", "vm-1", false, T0.plusSeconds(10));
    h.probe("orders", "vm-1", false, T0.plusSeconds(11));
    h.probe("orders", "vm-1", true, T0.plusSeconds(12)); // breaks the run of failures
    h.probe("orders", "vm-1", false, T0.plusSeconds(13));
    h.probe("orders", "vm-1", false, T0.plusSeconds(14));
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.HEALTHY);
    h.probe("orders", "vm-1", false, T0.plusSeconds(15));

    HealthState state = h.state(EntityKind.ENDPOINT, "orders/vm-1");
    assertThat(state.getStatus()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(state.getSince()).isEqualTo(T0.plusSeconds(15));
    List<HealthTransition> transitions = h.transitions(EntityKind.ENDPOINT, "orders/vm-1");
    assertThat(transitions).extracting(HealthTransition::getNewStatus)
        .containsExactly(HealthStatus.HEALTHY, HealthStatus.UNHEALTHY);
    HealthTransition last = transitions.get(1);
    assertThat(last.getCause().getReason()).isEqualTo(TransitionReason.PROBE);
    assertThat(last.getCause().getUnhealthyCount()).isEqualTo(3);
    assertThat(last.getCause().getUnhealthyThreshold()).isEqualTo(3);
    assertThat(last.getCause().getTriggerTopic()).isEqualTo(Topics.PROBE_RESULTS.name());
    assertThat(last.getCause().getTriggerOffset()).isNotNull();
  }

  @Test
  void isUnknownBeforeEnoughResults_R_EP_3() {
    h.service(Harness.service("orders", 1));
    h.probe("orders", "vm-1", false, T0.plusSeconds(1));
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(h.transitions(EntityKind.ENDPOINT, "orders/vm-1")).isEmpty();
  }

  @Test
  void recordsWhatEachProbeIs_R_EP_1() {
    h.service(Harness.service("orders", 1, 1, 1));
    h.probe("orders", "vm-1", true, T0.plusSeconds(7));
    HealthTransition t = h.transitions(EntityKind.ENDPOINT, "orders/vm-1").get(0);
    assertThat(t.getEventTime()).isEqualTo(T0.plusSeconds(7));
    assertThat(t.getCause().getHealthyCount()).isEqualTo(1);
  }

  @Test
  void becomesUnknownAtEventTimeWhenResultsStop_R_EP_4() {
    h.service(Harness.service("orders", 2)); // 5 s interval x 3 = stale after 15 s
    h.probeAll("orders", Harness.vms(1, 2), true, 2, T0);
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.HEALTHY);
    // vm-2 keeps reporting; vm-1 falls silent after T0+1s.
    for (int s = 5; s <= 30; s += 5) {
      h.probe("orders", "vm-2", true, T0.plusSeconds(s));
    }
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-2")).isEqualTo(HealthStatus.HEALTHY);
    HealthTransition stale = h.transitions(EntityKind.ENDPOINT, "orders/vm-1").get(1);
    assertThat(stale.getCause().getReason()).isEqualTo(TransitionReason.STALE);
    assertThat(stale.getEventTime()).as("event time of expiry, not wall clock").isEqualTo(T0.plusSeconds(16));
    assertThat(h.counter("healthmesh.endpoints.stale")).isEqualTo(1);
  }

  @Test
  void heartbeatsAdvanceEventTime_whenNoProbeArrives_R_EP_4() {
    h.service(Harness.service("orders", 1));
    h.probeAll("orders", List.of("vm-1"), true, 2, T0);
    h.heartbeat("any-key", T0.plusSeconds(60));
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(h.probeDeadLetters).isEmpty();
  }

  @Test
  void ignoresAndCountsOutOfOrderResults_R_EP_5() {
    h.service(Harness.service("orders", 1));
    h.probeAll("orders", List.of("vm-1"), true, 2, T0.plusSeconds(10));
    h.probe("orders", "vm-1", false, T0.plusSeconds(1)); // older than the last applied
    h.probe("orders", "vm-1", false, T0.plusSeconds(2));
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.counter("healthmesh.probes.ignored", "reason", "out_of_order")).isEqualTo(2);
    assertThat(h.probeDeadLetters).isEmpty();
  }

  @Test
  void deadLettersProbeForUnknownEndpoint_R_EP_6() {
    h.service(Harness.service("orders", 1));
    h.probe("orders", "vm-9", true, T0.plusSeconds(1));
    h.probe("payments", "vm-1", true, T0.plusSeconds(1));
    h.drain();
    assertThat(h.probeDeadLetters).hasSize(2).allSatisfy(d -> {
      assertThat(d.getReason().name()).isEqualTo("UNKNOWN_ENTITY");
      assertThat(d.getMessage()).contains("R-EP-6");
      assertThat(d.getValue()).isNotNull();
    });
    assertThat(h.state(EntityKind.ENDPOINT, "orders/vm-9")).isNull();
  }
}
