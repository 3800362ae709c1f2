package io.healthmesh.streams;

import static io.healthmesh.streams.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * R-EP-4, R-EP-5: skewed and honest probers side by side. Record times are the broker's (the
 * project creates probe-results with LogAppendTime); event times are each prober's clock.
 */
class ProberClockTest {
  private final Harness h = new Harness();

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void aFastProbersClockDoesNotAgeAnEndpointItDoesNotProbe_R_EP_4() {
    h.service(Harness.service("orders", 2, 1, 1)); // 5 s interval x 3: stale after 15 s
    for (int s = 0; s <= 60; s++) {
      Instant now = T0.plusSeconds(s);
      h.probe("orders", "vm-1", false, now, now); // honest, failing every second
      h.probe("orders", "vm-2", true, now.plusSeconds(25), now); // its prober's clock runs 25 s fast
    }
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).as("never stale, so DNS never fails open to it")
        .isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(h.transitions(EntityKind.ENDPOINT, "orders/vm-1")).hasSize(1);
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-2")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.counter("healthmesh.endpoints.stale")).isZero();
  }

  @Test
  void resultsDatedAheadDoNotLockTheEndpoint_andTheHonestOnesAfterThemApply_R_EP_5() {
    h.service(Harness.service("orders", 1, 1, 1));
    h.probe("orders", "vm-1", true, T0, T0);
    // Two results 20 s ahead of the broker (within the allowed skew), then the honest prober.
    h.probe("orders", "vm-1", true, T0.plusSeconds(21), T0.plusSeconds(1));
    h.probe("orders", "vm-1", true, T0.plusSeconds(22), T0.plusSeconds(2));
    h.probe("orders", "vm-1", false, T0.plusSeconds(3), T0.plusSeconds(3));
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(h.counter("healthmesh.probes.ignored", "reason", "out_of_order")).isZero();
    assertThat(h.state(EntityKind.ENDPOINT, "orders/vm-1").getSince()).isEqualTo(T0.plusSeconds(3));
  }

  @Test
  void deadLettersResultsAndHeartbeatsFarAheadOfTheBroker_andStalenessKeepsWorking_R_EP_4() {
    h.service(Harness.service("orders", 2, 1, 1));
    h.probe("orders", "vm-1", true, T0, T0);
    h.probe("orders", "vm-2", true, T0, T0);
    h.probe("orders", "vm-1", false, T0.plusSeconds(240), T0.plusSeconds(1));
    h.heartbeat("orders", T0.plus(Duration.ofDays(3650)), T0.plusSeconds(2));
    h.drain();
    assertThat(h.probeDeadLetters).hasSize(2).allSatisfy(d -> {
      assertThat(d.getReason()).isEqualTo(DeadLetterReason.INVALID);
      assertThat(d.getMessage()).contains("R-EP-4");
    });
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.HEALTHY);
    // vm-2 is probed on; vm-1 falls silent and goes stale on the broker's time, as before.
    for (int s = 5; s <= 20; s += 5) {
      h.probe("orders", "vm-2", true, T0.plusSeconds(s), T0.plusSeconds(s));
    }
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-2")).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void aSlowProbersResultsStillKeepItsEndpointFresh_R_EP_4() {
    h.service(Harness.service("orders", 1, 1, 1));
    for (int s = 0; s <= 60; s += 5) {
      Instant now = T0.plusSeconds(s);
      h.probe("orders", "vm-1", true, now.minusSeconds(40), now); // its clock runs 40 s slow
    }
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.counter("healthmesh.endpoints.stale")).isZero();
  }
}
