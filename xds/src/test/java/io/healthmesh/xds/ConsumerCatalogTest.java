package io.healthmesh.xds;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.PscBackend;
import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.NegState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsumerCatalogTest {
  private static final List<PscBackend> NEGS = List.of(XdsServerIT.neg("psc-use1", "us-east1", "fr-use1"),
      XdsServerIT.neg("psc-euw1", "europe-west1", "fr-euw1"), XdsServerIT.neg("psc-asia", "asia-east1", "fr-asia"));
  private static final Map<String, ForwardingRule> RULES = Map.of(
      "fr-use1", XdsServerIT.rule("fr-use1", "us-east1", 8001), "fr-euw1", XdsServerIT.rule("fr-euw1", "europe-west1", 8002),
      "fr-asia", XdsServerIT.rule("fr-asia", "asia-east1", 8003));

  @Test
  void activeRegionsComeFirstInTheDecisionsOrder_whenTheDecisionMovesTraffic() { // R-XDS-4
    var out = ConsumerCatalog.localities(NEGS, RULES, decision(List.of("asia-east1", "europe-west1"),
        io.healthmesh.events.HealthStatus.UNHEALTHY, io.healthmesh.events.HealthStatus.HEALTHY,
        io.healthmesh.events.HealthStatus.HEALTHY), new ArrayList<>());
    assertThat(out).extracting(ConsumerResources.Locality::region).containsExactly("asia-east1", "europe-west1", "us-east1");
    assertThat(out).extracting(ConsumerResources.Locality::priority).containsExactly(0, 1, 2);
    assertThat(out).extracting(ConsumerResources.Locality::health)
        .containsExactly(HealthStatus.HEALTHY, HealthStatus.HEALTHY, HealthStatus.UNHEALTHY);
    assertThat(out.get(0).port()).isEqualTo(8003);
  }

  @Test
  void everyNegIsUnknownInTheServicesOrder_whenNoDecisionExistsYet() { // R-XDS-3, R-XDS-4
    var out = ConsumerCatalog.localities(NEGS, RULES, null, new ArrayList<>());
    assertThat(out).extracting(ConsumerResources.Locality::neg).containsExactly("psc-use1", "psc-euw1", "psc-asia");
    assertThat(out).extracting(ConsumerResources.Locality::health).containsOnly(HealthStatus.UNKNOWN);
  }

  @Test
  void unhealthyActiveNegsAreRoutable_whenTheDecisionFailsOpen() { // R-XDS-3
    assertThat(ConsumerCatalog.health(io.healthmesh.events.HealthStatus.UNHEALTHY, true)).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(ConsumerCatalog.health(io.healthmesh.events.HealthStatus.UNHEALTHY, false)).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(ConsumerCatalog.health(io.healthmesh.events.HealthStatus.UNKNOWN, false)).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(ConsumerCatalog.health(io.healthmesh.events.HealthStatus.HEALTHY, true)).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void negWithoutUsableRuleIsLeftOutAndPrioritiesStayContiguous_whenItsRuleIsMissingOrPortless() { // R-XDS-2
    ForwardingRule portless = ForwardingRule.newBuilder(RULES.get("fr-euw1")).setPort(null).build();
    List<String> problems = new ArrayList<>();
    var out = ConsumerCatalog.localities(NEGS, Map.of("fr-use1", RULES.get("fr-use1"), "fr-euw1", portless), null,
        problems);
    assertThat(out).extracting(ConsumerResources.Locality::neg).containsExactly("psc-use1");
    assertThat(out).extracting(ConsumerResources.Locality::priority).containsExactly(0);
    assertThat(problems).hasSize(2).allMatch(p -> p.contains("R-XDS-2"));
    assertThat(problems).anyMatch(p -> p.contains("all ports")).anyMatch(p -> p.contains("fr-asia"));
  }

  @Test
  void onlyConsumersOfAChangedRuleAreTouched_whenARuleOrDecisionChanges() { // R-XDS-5
    ConsumerCatalog catalog = new ConsumerCatalog();
    catalog.backendService("a", XdsServerIT.consumer("a", NEGS.get(0)));
    catalog.backendService("b", XdsServerIT.consumer("b", NEGS.get(1)));
    catalog.backendService("plain", null);
    assertThat(catalog.drainTouched()).containsExactlyInAnyOrder("a", "b");
    catalog.forwardingRule("fr-euw1", RULES.get("fr-euw1"));
    assertThat(catalog.drainTouched()).containsExactly("b");
    catalog.failover("a", decision(List.of("us-east1"), io.healthmesh.events.HealthStatus.HEALTHY,
        io.healthmesh.events.HealthStatus.HEALTHY, io.healthmesh.events.HealthStatus.HEALTHY));
    catalog.failover("not-a-consumer", null);
    assertThat(catalog.drainTouched()).containsExactly("a");
  }

  @Test
  void invalidVersionIsRefusedAndThePreviousServes_whenRegionsRepeat() { // R-XDS-2
    ConsumerCatalog catalog = new ConsumerCatalog();
    catalog.forwardingRule("fr-use1", RULES.get("fr-use1"));
    catalog.backendService("a", XdsServerIT.consumer("a", NEGS.get(0)));
    catalog.backendService("a", XdsServerIT.consumer("a", NEGS.get(0), XdsServerIT.neg("again", "us-east1", "fr-euw1")));
    assertThat(catalog.rejected()).isEqualTo(1);
    assertThat(catalog.localities("a", new ArrayList<>())).extracting(ConsumerResources.Locality::neg)
        .containsExactly("psc-use1");
  }

  private static ConsumerFailover decision(List<String> active, io.healthmesh.events.HealthStatus use1,
      io.healthmesh.events.HealthStatus euw1, io.healthmesh.events.HealthStatus asia) {
    return new ConsumerFailover(Instant.EPOCH, active, List.of(new NegState("psc-use1", "us-east1", use1),
        new NegState("psc-euw1", "europe-west1", euw1), new NegState("psc-asia", "asia-east1", asia)));
  }
}
