package io.healthmesh.streams;

import static io.healthmesh.streams.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.ProberQuorum;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.ProberView;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.rules.HealthCheckRules;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** docs/rules.md section 11: several probers of one endpoint, decided by quorum, through the whole topology. */
class ProberQuorumTest {
  private static final String VM = "orders/vm-1";
  private final Harness h = new Harness();

  @AfterEach
  void close() {
    h.close();
  }

  /** One endpoint, thresholds 2 and 2, checked every 5 s and stale after 15 s, with {@code quorum} (null: default). */
  private static BackendService service(ProberQuorum quorum) {
    BackendService s = Harness.service("orders", 1, 2, 2);
    return BackendService.newBuilder(s)
        .setHealthCheck(HealthCheckSpec.newBuilder(s.getHealthCheck()).setProberQuorum(quorum).build()).build();
  }

  /** Every prober of {@code probers} checks the endpoint every 5 s from {@code from} to {@code to} s; {@code fails} tells who fails. */
  private void rounds(List<String> probers, int from, int to, Predicate<String> fails) {
    for (int second = from; second <= to; second += 5) {
      for (String prober : probers) {
        h.probe(prober, "orders", "vm-1", !fails.test(prober), T0.plusSeconds(second), T0.plusSeconds(second));
      }
    }
  }

  private List<HealthTransition> transitions() {
    return h.transitions(EntityKind.ENDPOINT, VM);
  }

  @Test
  void staysHealthyWithoutATransition_whenOneOfThreeProbersIsCutOff_R_PQ_1_R_PQ_2_R_PQ_4() {
    h.service(service(null));
    rounds(List.of("us-east", "eu-west", "asia"), 0, 120, "asia"::equals);

    assertThat(transitions()).singleElement().satisfies(t -> {
      assertThat(t.getNewStatus()).isEqualTo(HealthStatus.HEALTHY);
      assertThat(t.getEventTime()).as("when the second prober reached its threshold").isEqualTo(T0.plusSeconds(5));
      assertThat(t.getCause().getDetail()).contains("2 of 3 probers see it HEALTHY").contains("R-PQ-2")
          .contains("asia UNKNOWN");
      assertThat(List.of(t.getCause().getHealthyCount(), t.getCause().getUnhealthyCount(), t.getCause().getUnknownCount()))
          .as("counted in probers (R-PQ-4)").containsExactly(2, 0, 1);
    });
    HealthState state = h.state(EntityKind.ENDPOINT, VM);
    assertThat(state.getStatus()).isEqualTo(HealthStatus.HEALTHY);
    assertThat(state.getProbers()).as("the views that decided it, not republished while nothing changes")
        .extracting(ProberView::getProber, ProberView::getStatus).containsExactly(
        org.assertj.core.groups.Tuple.tuple("asia", HealthStatus.UNKNOWN),
        org.assertj.core.groups.Tuple.tuple("eu-west", HealthStatus.HEALTHY),
        org.assertj.core.groups.Tuple.tuple("us-east", HealthStatus.HEALTHY));
  }

  @Test
  void goesUnhealthy_whenTwoOfThreeProbersFail_R_PQ_2() {
    h.service(service(null));
    rounds(List.of("us-east", "eu-west", "asia"), 0, 20, p -> false);
    rounds(List.of("us-east", "eu-west", "asia"), 25, 60, p -> !p.equals("asia"));

    assertThat(transitions()).extracting(HealthTransition::getNewStatus)
        .containsExactly(HealthStatus.HEALTHY, HealthStatus.UNHEALTHY);
    HealthTransition down = transitions().get(1);
    assertThat(down.getEventTime()).as("the second failing prober's second failure").isEqualTo(T0.plusSeconds(30));
    assertThat(down.getCause().getReason()).isEqualTo(TransitionReason.PROBE);
    assertThat(down.getCause().getDetail()).contains("1 of 3 probers see it HEALTHY");
  }

  @Test
  void aStoppedProberDropsOut_andWhenAllStopTheEndpointIsStale_R_PQ_1() {
    h.service(service(null));
    rounds(List.of("us-east", "eu-west", "asia"), 0, 20, p -> false);
    rounds(List.of("us-east", "eu-west"), 25, 60, p -> false); // asia stops: out after 15 s
    assertThat(transitions()).extracting(HealthTransition::getNewStatus).containsExactly(HealthStatus.HEALTHY);
    assertThat(h.state(EntityKind.ENDPOINT, VM).getProbers()).as("published at its last transition")
        .extracting(ProberView::getProber).containsExactly("asia", "eu-west", "us-east");

    h.heartbeat("orders", T0.plusSeconds(90));
    assertThat(transitions()).extracting(HealthTransition::getNewStatus)
        .containsExactly(HealthStatus.HEALTHY, HealthStatus.UNKNOWN);
    HealthTransition stale = transitions().get(1);
    assertThat(stale.getCause().getReason()).isEqualTo(TransitionReason.STALE);
    assertThat(stale.getEventTime()).as("15 s after the last prober's last result").isEqualTo(T0.plusSeconds(75));
    assertThat(h.state(EntityKind.ENDPOINT, VM).getProbers()).as("none fresh").isEmpty();

    rounds(List.of("eu-west"), 100, 105, p -> false);
    assertThat(h.status(EntityKind.ENDPOINT, VM)).as("one prober alone again").isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.state(EntityKind.ENDPOINT, VM).getProbers()).isEmpty();
  }

  @Test
  void aDropOutThatChangesTheDecision_isATransitionOfReasonStale_R_PQ_1_R_PQ_4() {
    h.service(service(null));
    rounds(List.of("us-east", "eu-west", "asia"), 0, 20, "asia"::equals);
    rounds(List.of("asia"), 25, 60, p -> true); // the two that saw it HEALTHY stop

    assertThat(transitions()).extracting(HealthTransition::getNewStatus)
        .containsExactly(HealthStatus.HEALTHY, HealthStatus.UNHEALTHY);
    HealthTransition down = transitions().get(1);
    assertThat(down.getCause().getReason()).isEqualTo(TransitionReason.STALE);
    assertThat(down.getEventTime()).as("when the last of them went stale").isEqualTo(T0.plusSeconds(35));
    assertThat(down.getCause().getDetail()).contains("0 of 1 probers see it HEALTHY").contains("R-PQ-2");
  }

  @Test
  void fewerFreshProbersThanTheMinimum_isUnknown_R_PQ_2() {
    h.service(service(ProberQuorum.newBuilder().setHealthyPercent(100).setMinProbers(2).build()));
    rounds(List.of("us-east"), 0, 20, p -> false);
    assertThat(h.status(EntityKind.ENDPOINT, VM)).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(h.state(EntityKind.ENDPOINT, VM).getProbers()).as("published with its first result")
        .extracting(ProberView::getProber).containsExactly("us-east");

    rounds(List.of("us-east", "eu-west"), 25, 30, p -> false);
    assertThat(h.status(EntityKind.ENDPOINT, VM)).isEqualTo(HealthStatus.HEALTHY);
    rounds(List.of("us-east", "eu-west"), 35, 40, "eu-west"::equals);
    assertThat(h.status(EntityKind.ENDPOINT, VM)).as("100 %: one dissent is enough").isEqualTo(HealthStatus.UNHEALTHY);
  }

  @Test
  void eachProberKeepsItsOwnOrder_R_PQ_1() {
    h.service(service(null));
    h.probe("fast-clock", "orders", "vm-1", true, T0.plusSeconds(10), T0.plusSeconds(10));
    h.probe("slow-clock", "orders", "vm-1", true, T0.plusSeconds(4), T0.plusSeconds(10));
    h.probe("slow-clock", "orders", "vm-1", true, T0.plusSeconds(6), T0.plusSeconds(12));
    h.probe("fast-clock", "orders", "vm-1", true, T0.plusSeconds(16), T0.plusSeconds(16));
    assertThat(h.counter("healthmesh.probes.ignored", "reason", "out_of_order")).as("another prober's clock does not matter").isZero();
    assertThat(h.status(EntityKind.ENDPOINT, VM)).isEqualTo(HealthStatus.HEALTHY);

    h.probe("slow-clock", "orders", "vm-1", false, T0.plusSeconds(5), T0.plusSeconds(17));
    assertThat(h.counter("healthmesh.probes.ignored", "reason", "out_of_order")).as("older than its own last result (R-EP-5)").isEqualTo(1);
  }

  @Test
  void oneProberDecidesExactlyAsWithoutQuorum_whateverItIsCalled_R_PQ_3() {
    List<String> baseline = decisions("test", null);
    assertThat(baseline).hasSizeGreaterThan(5);
    assertThat(decisions("eu-west-1/prober-7", null)).isEqualTo(baseline);
    assertThat(decisions("", ProberQuorum.newBuilder().setHealthyPercent(100).setMinProbers(1).build()))
        .isEqualTo(baseline);
  }

  /** Random results of one prober with a silence, as every transition's time, states, counts and detail. */
  private static List<String> decisions(String prober, ProberQuorum quorum) {
    try (Harness run = new Harness()) {
      run.service(service(quorum));
      Random random = new Random(11);
      for (int second = 0; second < 400; second += 5) {
        if (second < 200 || second > 260) {
          boolean success = random.nextInt(3) != 0;
          run.probe(prober, "orders", "vm-1", success, T0.plusSeconds(second), T0.plusSeconds(second));
        } else {
          run.heartbeat("orders", T0.plusSeconds(second));
        }
      }
      HealthState last = run.state(EntityKind.ENDPOINT, VM);
      assertThat(last.getProbers()).isEmpty();
      return run.transitions(EntityKind.ENDPOINT, VM).stream().map(t -> t.getEventTime() + " " + t.getOldStatus()
          + ">" + t.getNewStatus() + " " + t.getVersion() + " " + t.getCause()).toList();
    }
  }

  @Test
  void aQuorumOutsideItsRanges_isRejectedNamingTheRule_R_PQ_2() {
    HealthCheckSpec bad = HealthCheckSpec.newBuilder()
        .setProberQuorum(ProberQuorum.newBuilder().setHealthyPercent(0).setMinProbers(101).build()).build();
    assertThat(HealthCheckRules.problems("healthCheck", bad)).containsExactly(
        "healthCheck.proberQuorum.healthyPercent: 0 is outside 1..100 (R-PQ-2)",
        "healthCheck.proberQuorum.minProbers: 101 is outside 1..100 (R-PQ-2)");
    h.service(BackendService.newBuilder(service(null)).setHealthCheck(bad).build());
    assertThat(h.drain().configDeadLetters).singleElement()
        .satisfies(d -> assertThat(d.getMessage()).contains("R-PQ-2"));
    assertThat(Set.copyOf(HealthCheckRules.problems("hc", HealthCheckSpec.newBuilder().build()))).isEmpty();
  }
}
