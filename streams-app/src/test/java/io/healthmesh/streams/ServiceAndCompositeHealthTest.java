package io.healthmesh.streams;

import static io.healthmesh.streams.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.CompositeStyle;
import io.healthmesh.config.LoadBalancerType;
import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.TransitionReason;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** docs/rules.md sections 2 and 3 through the whole topology. */
class ServiceAndCompositeHealthTest {
  private final Harness h = new Harness();

  @AfterEach
  void close() {
    h.close();
  }

  private void strictSource() {
    h.service(Harness.service("orders", 4));
    h.policy("strict", 75, 3, T0);
    h.source("orders-src", "orders", "strict");
  }

  @Test
  void seedExampleThreeOfFourHealthyUnder75Percent3_R_AGG_4_R_CH_1() {
    strictSource();
    h.probeAll("orders", Harness.vms(1, 3), true, 2, T0);
    h.probeAll("orders", List.of("vm-4"), false, 2, T0);
    assertThat(h.status(EntityKind.HEALTH_SOURCE, "orders-src")).isEqualTo(HealthStatus.HEALTHY);

    h.probeAll("orders", List.of("vm-3"), false, 2, T0.plusSeconds(10));
    HealthState state = h.state(EntityKind.HEALTH_SOURCE, "orders-src");
    assertThat(state.getStatus()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(state.getHealthyCount()).isEqualTo(2);
    assertThat(state.getUnhealthyCount()).isEqualTo(2);
  }

  @Test
  void newSourceWithoutResultsIsUnknown_R_AGG_3() {
    strictSource();
    HealthState state = h.state(EntityKind.HEALTH_SOURCE, "orders-src");
    assertThat(state.getStatus()).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(state.getUnknownCount()).isEqualTo(4);
  }

  @Test
  void policyChangeFlipsSourceWithoutAProbe_R_AGG_6() {
    strictSource();
    h.probeAll("orders", Harness.vms(1, 2), true, 2, T0);
    h.probeAll("orders", Harness.vms(3, 4), false, 2, T0);
    assertThat(h.status(EntityKind.HEALTH_SOURCE, "orders-src")).isEqualTo(HealthStatus.UNHEALTHY);

    // No probe after this; the record's later timestamp must not age the endpoints either.
    h.policy("strict", 50, 2, T0.plusSeconds(30));

    assertThat(h.status(EntityKind.HEALTH_SOURCE, "orders-src")).isEqualTo(HealthStatus.HEALTHY);
    HealthTransition flip = last(h.transitions(EntityKind.HEALTH_SOURCE, "orders-src"));
    assertThat(flip.getCause().getReason()).isEqualTo(TransitionReason.POLICY_CHANGE);
    assertThat(flip.getCause().getHealthyPercentThreshold()).isEqualTo(50);
    assertThat(flip.getCause().getMinHealthyThreshold()).isEqualTo(2);
    assertThat(flip.getCause().getPolicyName()).isEqualTo("strict");
    assertThat(flip.getCause().getPolicyVersion()).as("offset of the policy record").isEqualTo(1L);
    assertThat(flip.getEventTime()).isEqualTo(T0.plusSeconds(30));
  }

  @Test
  void membershipChangeReevaluatesAtOnce_R_AGG_6() {
    strictSource();
    h.probeAll("orders", Harness.vms(1, 3), true, 2, T0);
    h.probeAll("orders", List.of("vm-4"), false, 2, T0);
    assertThat(h.status(EntityKind.HEALTH_SOURCE, "orders-src")).isEqualTo(HealthStatus.HEALTHY);

    // Two unprobed endpoints join: 3 of 6 can no longer be 75% whatever they turn out to be.
    h.service(Harness.service("orders", 6));
    assertThat(h.status(EntityKind.HEALTH_SOURCE, "orders-src")).isEqualTo(HealthStatus.UNKNOWN);
    // Removing the failing one and the new ones: 3 of 3.
    h.service(Harness.service("orders", 3));
    assertThat(h.status(EntityKind.HEALTH_SOURCE, "orders-src")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.state(EntityKind.ENDPOINT, "orders/vm-4")).as("removed endpoint is deleted").isNull();
    assertThat(last(h.transitions(EntityKind.HEALTH_SOURCE, "orders-src")).getCause().getReason())
        .isEqualTo(TransitionReason.MEMBERSHIP_CHANGE);
  }

  @Test
  void backendServicePublishesItsOwnStateUnderDefaults_R_AGG_1() {
    h.service(Harness.service("orders", 5));
    h.probeAll("orders", Harness.vms(1, 3), true, 2, T0);
    h.probeAll("orders", Harness.vms(4, 5), false, 2, T0);
    HealthState state = h.state(EntityKind.BACKEND_SERVICE, "orders");
    assertThat(state.getStatus()).isEqualTo(HealthStatus.HEALTHY); // 60% and 3 >= 1
    assertThat(state.getHealthyCount()).isEqualTo(3);
  }

  @Test
  void compositeIsUnknownWithOneUnknownAndNineHealthySources_R_CH_4() {
    List<String> sources = new ArrayList<>();
    h.policy("any", 50, 1, T0);
    for (int i = 1; i <= 10; i++) {
      h.service(Harness.service("svc-" + i, 1));
      h.source("src-" + i, "svc-" + i, "any");
      sources.add("src-" + i);
      if (i < 10) {
        h.probeAll("svc-" + i, List.of("vm-1"), true, 2, T0);
      }
    }
    h.forwardingRule("fr-orders", "svc-1", LoadBalancerType.regionalL7ilb);
    h.composite("orders-chc", sources, "fr-orders");
    HealthState state = h.state(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc");
    assertThat(state.getStatus()).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(state.getHealthyCount()).isEqualTo(9);
    assertThat(state.getUnknownCount()).isEqualTo(1);

    h.probeAll("svc-10", List.of("vm-1"), true, 2, T0.plusSeconds(5));
    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc")).isEqualTo(HealthStatus.HEALTHY);
    h.probeAll("svc-4", List.of("vm-1"), false, 2, T0.plusSeconds(10));
    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc")).isEqualTo(HealthStatus.UNHEALTHY);
  }

  /** Three regional sources of one service, of which each test takes down some. */
  private List<String> threeSources() {
    h.policy("any", 50, 1, T0);
    List<String> sources = List.of("src-a", "src-b", "src-c");
    for (String s : sources) {
      h.service(Harness.service("svc-" + s, 1));
      h.source(s, "svc-" + s, "any");
      h.probeAll("svc-" + s, List.of("vm-1"), true, 2, T0);
    }
    h.forwardingRule("fr-orders", "svc-src-a", LoadBalancerType.regionalL7ilb);
    return sources;
  }

  private void styled(CompositeStyle style, int n, List<String> critical) {
    h.composite(CompositeHealthCheck.newBuilder().setName("orders-chc").setRegion(Harness.REGION)
        .setHealthSources(List.of("src-a", "src-b", "src-c")).setHealthDestination("fr-orders")
        .setStyle(style).setMinHealthySources(n).setCriticalSources(critical).build());
  }

  @Test
  void atLeastNStaysHealthyUntilTooFewSourcesAre_R_OP_4() {
    threeSources();
    styled(CompositeStyle.AT_LEAST_N, 2, List.of());
    h.probeAll("svc-src-b", List.of("vm-1"), false, 2, T0.plusSeconds(5));
    HealthState one = h.state(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc");
    assertThat(one.getStatus()).as("2 of 3 HEALTHY").isEqualTo(HealthStatus.HEALTHY);
    assertThat(one.getUnhealthyCount()).isEqualTo(1);

    h.probeAll("svc-src-c", List.of("vm-1"), false, 2, T0.plusSeconds(10));
    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc")).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(last(h.transitions(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc")).getCause().getDetail())
        .isEqualTo("1 of 3 sources HEALTHY, 2 UNHEALTHY, 0 UNKNOWN; needs 2 HEALTHY (AT_LEAST_N) (R-OP-4)");
  }

  @Test
  void anyWithACriticalSourceFailsWithIt_R_OP_4() {
    threeSources();
    styled(CompositeStyle.ANY, 0, List.of("src-a"));
    h.probeAll("svc-src-b", List.of("vm-1"), false, 2, T0.plusSeconds(5));
    h.probeAll("svc-src-c", List.of("vm-1"), false, 2, T0.plusSeconds(5));
    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc")).as("one HEALTHY, the critical one")
        .isEqualTo(HealthStatus.HEALTHY);

    h.probeAll("svc-src-b", List.of("vm-1"), true, 2, T0.plusSeconds(10));
    h.probeAll("svc-src-a", List.of("vm-1"), false, 2, T0.plusSeconds(15));
    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc")).as("src-b HEALTHY, but src-a is critical")
        .isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(last(h.transitions(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc")).getCause().getDetail())
        .isEqualTo("1 of 3 sources HEALTHY, 2 UNHEALTHY, 0 UNKNOWN; needs 1 HEALTHY (ANY), critical src-a UNHEALTHY"
            + " (R-OP-4)");
  }

  @Test
  void styleChangeReevaluatesAtOnce_andAllStaysTheDefault_R_OP_4_R_CH_4() {
    threeSources();
    h.composite("orders-chc", List.of("src-a", "src-b", "src-c"), "fr-orders");
    h.probeAll("svc-src-c", List.of("vm-1"), false, 2, T0.plusSeconds(5));
    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc")).as("the seed's AND")
        .isEqualTo(HealthStatus.UNHEALTHY);
    styled(CompositeStyle.ANY, 0, List.of());
    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc")).isEqualTo(HealthStatus.HEALTHY);
    var margins = h.meters.find("healthmesh.composite.margin").tag("composite", "orders-chc").gauges();
    assertThat(margins).as("the ALL gauge is replaced").hasSize(1);
    assertThat(margins.iterator().next().getId().getTag("style")).isEqualTo("ANY");
    assertThat(margins.iterator().next().value()).as("2 HEALTHY, 1 needed").isEqualTo(1.0);
  }

  @Test
  void dryRunCompositeSitsBesideTheLiveOne_publishedApart_andNoConsumerFollowsIt_R_OP_5_R_CH_5() {
    threeSources();
    h.composite("orders-chc", List.of("src-a", "src-b", "src-c"), "fr-orders");
    h.composite(CompositeHealthCheck.newBuilder().setName("orders-any").setRegion(Harness.REGION)
        .setHealthSources(List.of("src-a", "src-b", "src-c")).setHealthDestination("fr-orders")
        .setStyle(CompositeStyle.ANY).setDryRun(true).build());
    h.consumer("consumer", List.of(Harness.neg("neg-use1", "us-east1", "fr-orders")));
    h.probeAll("svc-src-c", List.of("vm-1"), false, 2, T0.plusSeconds(5));
    h.drain();
    assertThat(h.configDeadLetters).as("a dry run holds no destination").isEmpty();

    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc")).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(h.state(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-any")).as("not among the live states").isNull();
    assertThat(h.status(EntityKind.DRY_RUN_COMPOSITE_HEALTH_CHECK, "orders-any")).as("what it would decide")
        .isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.transitions(EntityKind.DRY_RUN_COMPOSITE_HEALTH_CHECK, "orders-any")).isNotEmpty();
    assertThat(h.status(EntityKind.CONSUMER_NEG, "consumer/neg-use1")).as("the live composite's state")
        .isEqualTo(HealthStatus.UNHEALTHY);

    // Made live alone (the other deleted), it moves to the live states and the consumer follows it.
    h.config(io.healthmesh.schemas.Topics.COMPOSITE_HEALTH_CHECKS, "orders-chc", (CompositeHealthCheck) null,
        T0.plusSeconds(6));
    h.composite(CompositeHealthCheck.newBuilder().setName("orders-any").setRegion(Harness.REGION)
        .setHealthSources(List.of("src-a", "src-b", "src-c")).setHealthDestination("fr-orders")
        .setStyle(CompositeStyle.ANY).build());
    assertThat(h.state(EntityKind.DRY_RUN_COMPOSITE_HEALTH_CHECK, "orders-any")).isNull();
    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-any")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.status(EntityKind.CONSUMER_NEG, "consumer/neg-use1")).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void compositeActsAtOnce_R_CH_10() {
    strictSource();
    h.probeAll("orders", Harness.vms(1, 4), true, 2, T0);
    h.forwardingRule("fr-orders", "orders", LoadBalancerType.regionalL7ilb);
    h.composite("orders-chc", List.of("orders-src"), "fr-orders");
    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "orders-chc")).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void consumerNegTakesCompositeStateAndFailsOverAcrossRegions_R_CH_8() {
    h.policy("any", 50, 1, T0);
    for (String region : List.of("use1", "euw1")) {
      h.service(Harness.service("orders-" + region, 2));
      h.source("src-" + region, "orders-" + region, "any");
      h.forwardingRule("fr-" + region, "orders-" + region, LoadBalancerType.regionalL7ilb);
      h.composite("chc-" + region, List.of("src-" + region), "fr-" + region);
      h.probeAll("orders-" + region, Harness.vms(1, 2), true, 2, T0);
    }
    h.consumer("consumer", List.of(Harness.neg("neg-use1", "us-east1", "fr-use1"),
        Harness.neg("neg-euw1", "europe-west1", "fr-euw1"), Harness.neg("neg-asia", "asia-east1", "fr-none")));

    assertThat(h.status(EntityKind.CONSUMER_NEG, "consumer/neg-use1")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.status(EntityKind.CONSUMER_NEG, "consumer/neg-asia")).as("no composite yet").isEqualTo(HealthStatus.UNKNOWN);
    assertThat(lastDecision().getActiveRegions()).containsExactly("us-east1", "europe-west1");

    h.probeAll("orders-use1", Harness.vms(1, 2), false, 2, T0.plusSeconds(10));

    assertThat(h.status(EntityKind.CONSUMER_NEG, "consumer/neg-use1")).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(lastDecision().getActiveRegions()).containsExactly("europe-west1");
    HealthTransition t = last(h.transitions(EntityKind.CONSUMER_NEG, "consumer/neg-use1"));
    assertThat(t.getCause().getTriggerTopic()).isEqualTo("probe-results"); // R-CH-9
  }

  @Test
  void logsEveryTransitionOfSourcesCompositesAndNegsWithCause_R_CH_9_R_AUD_1() {
    strictSource();
    h.forwardingRule("fr-orders", "orders", LoadBalancerType.regionalL7ilb);
    h.composite("orders-chc", List.of("orders-src"), "fr-orders");
    h.probeAll("orders", Harness.vms(1, 4), true, 2, T0);
    h.probeAll("orders", Harness.vms(1, 2), false, 2, T0.plusSeconds(10));

    for (EntityKind kind : List.of(EntityKind.HEALTH_SOURCE, EntityKind.COMPOSITE_HEALTH_CHECK)) {
      String name = kind == EntityKind.HEALTH_SOURCE ? "orders-src" : "orders-chc";
      List<HealthTransition> transitions = h.transitions(kind, name);
      assertThat(transitions).extracting(HealthTransition::getNewStatus)
          .containsExactly(HealthStatus.HEALTHY, HealthStatus.UNHEALTHY);
      assertThat(transitions).extracting(HealthTransition::getOldStatus)
          .containsExactly(HealthStatus.UNKNOWN, HealthStatus.HEALTHY);
      assertThat(transitions.get(1).getCause().getTriggerOffset()).isNotNull();
      assertThat(transitions.get(1).getVersion()).isEqualTo(2);
    }
    HealthTransition source = h.transitions(EntityKind.HEALTH_SOURCE, "orders-src").get(1);
    assertThat(source.getCause().getHealthyCount()).isEqualTo(2);
    assertThat(source.getCause().getDetail()).contains("2 of 4").contains("R-AGG-2");
  }

  @Test
  void publishesOnlyChanges_neverTheCurrentValueAgain() {
    strictSource();
    h.probeAll("orders", Harness.vms(1, 4), true, 10, T0);
    h.drain();
    long sourceStates = h.stateLog.stream().filter(kv -> kv.key.getName().equals("orders-src")).count();
    // UNKNOWN with 4 unknown, then counts 1..4 healthy (status flips at 3 of 4).
    assertThat(sourceStates).isEqualTo(5);
    for (int i = 1; i < h.stateLog.size(); i++) {
      var prev = h.stateLog.get(i - 1);
      var cur = h.stateLog.get(i);
      if (prev.key.equals(cur.key)) {
        assertThat(cur.value).isNotEqualTo(prev.value);
      }
    }
  }

  @Test
  void passthroughLbWithNoBackendsIsHealthy_R_AGG_5_R_DNSHC_2() {
    h.service(Harness.service("empty", 0));
    h.forwardingRule("fr-l4", "empty", LoadBalancerType.regionalL4ilb);
    assertThat(h.status(EntityKind.FORWARDING_RULE, "fr-l4")).isEqualTo(HealthStatus.HEALTHY);

    h.service(Harness.service("empty", 6));
    h.probeAll("empty", List.of("vm-1"), true, 2, T0);
    h.probeAll("empty", Harness.vms(2, 6), false, 2, T0);
    assertThat(h.status(EntityKind.FORWARDING_RULE, "fr-l4")).as("1 of 6 < 20%").isEqualTo(HealthStatus.UNHEALTHY);
    h.service(Harness.service("empty", 5));
    assertThat(h.status(EntityKind.FORWARDING_RULE, "fr-l4")).as("1 of 5 = 20%").isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void applicationLbHealthyWhileOneBackendIsHealthy_R_DNSHC_3() {
    h.service(Harness.service("web", 10));
    h.forwardingRule("fr-l7", "web", LoadBalancerType.regionalL7ilb);
    h.probeAll("web", List.of("vm-1"), true, 2, T0);
    h.probeAll("web", Harness.vms(2, 10), false, 2, T0);
    assertThat(h.status(EntityKind.FORWARDING_RULE, "fr-l7")).isEqualTo(HealthStatus.HEALTHY);
    h.probeAll("web", List.of("vm-1"), false, 2, T0.plusSeconds(5));
    assertThat(h.status(EntityKind.FORWARDING_RULE, "fr-l7")).isEqualTo(HealthStatus.UNHEALTHY);
  }

  @Test
  void deletedSourceDisappearsAndCompositeReevaluates() {
    strictSource();
    h.probeAll("orders", Harness.vms(1, 4), true, 2, T0);
    h.forwardingRule("fr-orders", "orders", LoadBalancerType.regionalL7ilb);
    h.composite("chc", List.of("orders-src"), "fr-orders");
    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "chc")).isEqualTo(HealthStatus.HEALTHY);
    h.config(io.healthmesh.schemas.Topics.HEALTH_SOURCES, "orders-src", null, T0.plusSeconds(20));
    assertThat(h.state(EntityKind.HEALTH_SOURCE, "orders-src")).isNull();
    assertThat(h.status(EntityKind.COMPOSITE_HEALTH_CHECK, "chc")).isEqualTo(HealthStatus.UNKNOWN);
  }

  private ConsumerFailover lastDecision() {
    h.drain();
    return h.failoverLog.get(h.failoverLog.size() - 1).value;
  }

  private static <T> T last(List<T> list) {
    return list.get(list.size() - 1);
  }

}
