package io.healthmesh.streams;

import static io.healthmesh.streams.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.FlapDamping;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.TransitionReason;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** docs/rules.md R-OP-3: a dwell time and flap damping, by event time, through the whole topology. */
class FlapDampingTest {
  private static final String VM = "orders/vm-1";
  private final Harness h = new Harness();

  @AfterEach
  void close() {
    h.close();
  }

  /** One endpoint, judged after one result either way, with the given dwell and damping. */
  private void service(int dwellSec, FlapDamping damping) {
    BackendService s = Harness.service("orders", 1, 1, 1);
    HealthCheckSpec hc = HealthCheckSpec.newBuilder(s.getHealthCheck()).setStaleAfterIntervals(1000)
        .setMinDwellSec(dwellSec).setFlapDamping(damping).build();
    h.service(BackendService.newBuilder(s).setHealthCheck(hc).build());
  }

  private void probe(boolean success, int second) {
    h.probe("orders", "vm-1", success, T0.plusSeconds(second));
  }

  private List<HealthTransition> transitions() {
    return h.transitions(EntityKind.ENDPOINT, VM);
  }

  @Test
  void withoutDampingEveryStateIsPublishedAtOnce_asTheSeedSays_R_OP_3() {
    service(0, null);
    probe(true, 0);
    probe(false, 5);
    probe(true, 10);
    assertThat(transitions()).extracting(HealthTransition::getNewStatus)
        .containsExactly(HealthStatus.HEALTHY, HealthStatus.UNHEALTHY, HealthStatus.HEALTHY);
    assertThat(transitions()).extracting(t -> t.getCause().getReason()).containsOnly(TransitionReason.PROBE);
  }

  @Test
  void aNewStateIsPublishedOnlyOnceHeldForTheDwellTime_andABlipNever_R_OP_3() {
    service(10, null);
    for (int s = 0; s <= 10; s += 5) {
      probe(true, s);
    }
    assertThat(transitions()).singleElement().satisfies(t -> {
      assertThat(t.getNewStatus()).isEqualTo(HealthStatus.HEALTHY);
      assertThat(t.getEventTime()).as("the first result 10 s after it was reached").isEqualTo(T0.plusSeconds(10));
      assertThat(t.getCause().getDetail()).contains("held at least 10 s").contains("R-OP-3");
    });
    probe(false, 15); // a blip: reverts within the dwell time
    probe(true, 20);
    probe(true, 30);
    assertThat(transitions()).as("the blip is never published").hasSize(1);

    probe(false, 35);
    probe(false, 40);
    assertThat(h.status(EntityKind.ENDPOINT, VM)).as("held 5 s of 10").isEqualTo(HealthStatus.HEALTHY);
    probe(false, 45);
    HealthTransition down = transitions().get(1);
    assertThat(down.getNewStatus()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(down.getEventTime()).isEqualTo(T0.plusSeconds(45));
    assertThat(h.state(EntityKind.ENDPOINT, VM).getSince()).isEqualTo(T0.plusSeconds(45));
  }

  @Test
  void anEndpointThatFailsTooOftenIsHeldDown_forDoublingTimes_R_OP_3() {
    service(0, FlapDamping.newBuilder().setMaxFailures(2).setWindowSec(300).setSuppressSec(30).setMaxSuppressSec(600)
        .build());
    int t = 0;
    probe(true, t);
    for (int flap = 0; flap < 2; flap++) {
      probe(false, t += 5);
      probe(true, t += 5);
    }
    assertThat(h.status(EntityKind.ENDPOINT, VM)).as("2 failures in the window are allowed").isEqualTo(HealthStatus.HEALTHY);
    probe(false, t += 5); // the third: suppressed for 30 s
    HealthTransition held = transitions().get(transitions().size() - 1);
    assertThat(held.getNewStatus()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(held.getCause().getReason()).isEqualTo(TransitionReason.FLAP_DAMPING);
    assertThat(held.getCause().getDetail())
        .isEqualTo("UNHEALTHY more than 2 times in 300 s: held UNHEALTHY for 30 s, suppression 1 (R-OP-3)");
    int suppressedAt = t;
    while (t < suppressedAt + 25) {
      probe(true, t += 5);
    }
    assertThat(h.status(EntityKind.ENDPOINT, VM)).as("healthy results, still held").isEqualTo(HealthStatus.UNHEALTHY);
    probe(true, t += 5);
    HealthTransition released = transitions().get(transitions().size() - 1);
    assertThat(released.getNewStatus()).isEqualTo(HealthStatus.HEALTHY);
    assertThat(released.getEventTime()).isEqualTo(T0.plusSeconds(suppressedAt + 30));
    assertThat(released.getCause().getReason()).isEqualTo(TransitionReason.FLAP_DAMPING);
    assertThat(released.getCause().getDetail()).startsWith("suppression ended; HEALTHY after");

    for (int flap = 0; flap < 2; flap++) {
      probe(false, t += 5);
      probe(true, t += 5);
    }
    probe(false, t += 5);
    assertThat(transitions().get(transitions().size() - 1).getCause().getDetail())
        .as("again within the window of the last: twice as long").contains("for 60 s, suppression 2");
    assertThat(h.meters.get("healthmesh.endpoints.suppressed").tag("event", "started").counter().count()).isEqualTo(2);
  }

  @Test
  void failuresOlderThanTheWindowDoNotCount_R_OP_3() {
    service(0, FlapDamping.newBuilder().setMaxFailures(2).setWindowSec(60).build());
    probe(true, 0);
    for (int flap = 0; flap < 6; flap++) {
      probe(false, flap * 40 + 20);
      probe(true, flap * 40 + 40);
    }
    assertThat(transitions()).extracting(t -> t.getCause().getReason()).containsOnly(TransitionReason.PROBE);
  }

  @Test
  void aStaleEndpointIsUnknown_evenWhileHeld_R_OP_3_R_EP_4() {
    BackendService s = Harness.service("orders", 1, 1, 1);
    h.service(BackendService.newBuilder(s).setHealthCheck(HealthCheckSpec.newBuilder(s.getHealthCheck())
        .setFlapDamping(FlapDamping.newBuilder().setMaxFailures(1).setSuppressSec(600).setMaxSuppressSec(600).build())
        .build()).build());
    probe(true, 0);
    probe(false, 5);
    probe(true, 10);
    probe(false, 15);
    assertThat(transitions().get(transitions().size() - 1).getCause().getReason()).isEqualTo(TransitionReason.FLAP_DAMPING);
    h.heartbeat("orders", T0.plusSeconds(40));
    assertThat(h.status(EntityKind.ENDPOINT, VM)).as("no result for 3 intervals").isEqualTo(HealthStatus.UNKNOWN);
    probe(true, 45);
    assertThat(h.status(EntityKind.ENDPOINT, VM)).as("no longer held").isEqualTo(HealthStatus.HEALTHY);
  }
}
