package io.healthmesh.streams;

import static io.healthmesh.streams.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.LoadBalancerType;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.endpoint.EndpointTable;
import io.healthmesh.streams.endpoint.PerServiceStores;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** R-AUD-2: the same probe and configuration input gives the same states and transitions. */
class ReplayTest {

  /** A recorded incident: config, steady probes, failures, a policy change, members leaving, silence. */
  static void incident(Harness h) {
    Random random = new Random(42);
    h.policy("strict", 75, 3, T0);
    h.policy("any", 50, 1, T0);
    for (String region : List.of("use1", "euw1")) {
      h.service(Harness.service("orders-" + region, 4));
      h.source("src-" + region, "orders-" + region, region.equals("use1") ? "strict" : "any");
      h.forwardingRule("fr-" + region, "orders-" + region, LoadBalancerType.regionalL4ilb);
      h.composite("chc-" + region, List.of("src-" + region), "fr-" + region);
    }
    // R-OP-3: a flapping service under a dwell time and flap damping, decided by event time only
    io.healthmesh.config.BackendService flappy = Harness.service("flappy", 2, 1, 1);
    h.service(io.healthmesh.config.BackendService.newBuilder(flappy).setHealthCheck(
        io.healthmesh.config.HealthCheckSpec.newBuilder(flappy.getHealthCheck()).setMinDwellSec(2)
            .setFlapDamping(io.healthmesh.config.FlapDamping.newBuilder().setMaxFailures(2).setWindowSec(60)
                .setSuppressSec(10).setMaxSuppressSec(40).build()).build()).build());
    h.service(Harness.service("fleet", 2)); // R-PQ-1: three probers, one cut off for a while, one that stops
    h.consumer("consumer", List.of(Harness.neg("neg-use1", "us-east1", "fr-use1"),
        Harness.neg("neg-euw1", "europe-west1", "fr-euw1")));
    for (int second = 0; second < 120; second++) {
      for (String region : List.of("use1", "euw1")) {
        for (String vm : Harness.vms(1, 4)) {
          boolean degraded = region.equals("use1") && second > 40 && second < 80 && !vm.equals("vm-1");
          boolean silent = region.equals("euw1") && vm.equals("vm-4") && second > 60;
          if (!silent) {
            h.probe("orders-" + region, vm, !degraded && random.nextInt(20) != 0, T0.plusSeconds(second));
          }
        }
      }
      for (String vm : Harness.vms(1, 2)) {
        h.probe("flappy", vm, second % 12 < 6 || random.nextInt(3) == 0, T0.plusSeconds(second));
      }
      for (String prober : List.of("us-east", "eu-west", "asia")) {
        boolean cutOff = prober.equals("asia") && second > 20 && second < 60;
        boolean stopped = prober.equals("eu-west") && second > 70;
        boolean upSet = prober.equals("us-east") && second > 80 && second < 95;
        if (!stopped) {
          h.probe(prober, "fleet", "vm-" + (1 + second % 2), !cutOff && !upSet, T0.plusSeconds(second),
              T0.plusSeconds(second));
        }
      }
      if (second == 30) {
        h.raw(Topics.PROBE_RESULTS.name(), "orders-use1", new byte[] {9, 9, 9, 9, 9, 9}, T0.plusSeconds(second));
      }
      if (second == 50) {
        h.policy("strict", 25, 1, T0.plusSeconds(second));
      }
      if (second == 70) {
        h.probe("orders-use1", "vm-2", true, T0.plusSeconds(3)); // out of order
      }
      if (second == 90) {
        h.service(Harness.service("orders-euw1", 3));
      }
    }
  }

  @Test
  void sameInputGivesSameStatesAndTransitions_R_AUD_2() {
    Run first = run(ReplayTest::incident);
    Run second = run(ReplayTest::incident);

    assertThat(first.transitions).as("the incident produced transitions").hasSizeGreaterThan(20);
    assertThat(first.transitions).as("and flap damping held an endpoint down").anyMatch(t -> t.contains("FLAP_DAMPING"));
    assertThat(first.transitions).as("and probers decided by quorum").anyMatch(t -> t.contains("probers see it"));
    assertThat(second.states).isEqualTo(first.states);
    assertThat(second.transitions).isEqualTo(first.transitions);
    assertThat(second.failovers).isEqualTo(first.failovers);
    assertThat(second.deadLetters).isEqualTo(first.deadLetters);
  }

  @Test
  void sameStatesTransitionsAndStoredEndpoints_whenEndpointStateIsWrittenThroughTheCache() {
    Run atCommit = run(ReplayTest::incident, Map.of(StreamsSettings.ENDPOINT_WRITES, "at-commit"));
    Run throughCache = run(ReplayTest::incident, Map.of(StreamsSettings.ENDPOINT_WRITES, "through-cache"));

    assertThat(atCommit.endpointGroups).as("endpoint groups were stored").hasSizeGreaterThan(1);
    assertThat(throughCache).isEqualTo(atCommit);
  }

  record Run(List<String> states, List<String> transitions, List<String> failovers, List<String> deadLetters,
      List<String> endpointGroups) {}

  static Run run(Consumer<Harness> scenario) {
    return run(scenario, Map.of());
  }

  static Run run(Consumer<Harness> scenario, Map<String, String> settings) {
    try (Harness h = new Harness(1, settings)) {
      scenario.accept(h);
      h.drain();
      List<String> groups = new java.util.ArrayList<>();
      try (var it = h.driver.<String, EndpointTable.Group>getKeyValueStore(PerServiceStores.ENDPOINTS).all()) {
        it.forEachRemaining(kv -> groups.add(kv.key + "=" + kv.value.members().stream().map(Object::toString).toList()));
      }
      return new Run(
          h.stateLog.stream().map(kv -> kv.key + "=" + kv.value).toList(),
          h.transitionLog.stream().map(Object::toString).toList(),
          h.failoverLog.stream().map(kv -> kv.key + "=" + kv.value).toList(),
          h.probeDeadLetters.stream().map(Object::toString).toList(),
          groups);
    }
  }
}
