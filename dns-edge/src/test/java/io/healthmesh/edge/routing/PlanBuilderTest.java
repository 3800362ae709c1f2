package io.healthmesh.edge.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.GeoItem;
import io.healthmesh.config.GeoPolicy;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.LoadBalancerTarget;
import io.healthmesh.config.PrimaryBackupPolicy;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** From configuration and published health to what the engine decides on (R-DNSHC-1). */
class PlanBuilderTest {
  private static final ForwardingRule FR = ForwardingRule.newBuilder().setName("fr-orders").setRegion("us-east1")
      .setIpAddress("10.1.0.100").setBackendService("orders").build();

  private final Map<String, HealthStatus> health = new java.util.HashMap<>();
  private final PlanBuilder.Targets targets = new PlanBuilder.Targets() {
    @Override
    public ForwardingRule forwardingRule(String name) {
      return name.equals(FR.getName()) ? FR : null;
    }

    @Override
    public HealthStatus health(EntityKind kind, String name) {
      return health.getOrDefault(kind + "|" + name, HealthStatus.UNKNOWN);
    }
  };

  private final Map<String, PlanBuilder.LastKnown> lastKnown = new java.util.HashMap<>();
  private final List<Long> changes = new java.util.ArrayList<>();
  private long now;
  private final PlanBuilder.Targets remembering = new PlanBuilder.Targets() {
    @Override
    public ForwardingRule forwardingRule(String name) {
      return targets.forwardingRule(name);
    }

    @Override
    public HealthStatus health(EntityKind kind, String name) {
      return targets.health(kind, name);
    }

    @Override
    public PlanBuilder.LastKnown lastKnown(EntityKind kind, String name) {
      return lastKnown.get(kind + "|" + name);
    }

    @Override
    public long now() {
      return now;
    }

    @Override
    public void changesAt(long millis) {
      changes.add(millis);
    }
  };

  /** A WRR record set over one UNKNOWN external endpoint and one unchecked address, counting UNKNOWN as told. */
  private static ResourceRecordSet unknownTarget(io.healthmesh.config.UnknownTargetBehavior behavior, int maxAge) {
    return ResourceRecordSet.newBuilder().setZone("internal").setName("api.example.internal.").setType("A")
        .setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            WrrItem.newBuilder().setWeight(1).setRrdatas(List.of("10.2.0.100", "10.9.9.9"))
                .setHealthCheckedTargets(lbAndExternal()).build())).build())
            .setUnknownTargets(behavior).setLastKnownMaxAgeSeconds(maxAge).build()).build();
  }

  @Test
  void unknownTargetCountsHealthyByDefault_orUnhealthyWhenTold_R_OP_2() {
    Plan.Wrr seed = (Plan.Wrr) PlanBuilder.plan(unknownTarget(io.healthmesh.config.UnknownTargetBehavior.COUNT_HEALTHY, 0),
        targets);
    assertThat(seed.items().get(0).healthy()).containsExactly("10.2.0.100", "10.9.9.9");
    assertThat(seed.items().get(0).addresses().get(0).unknown()).isTrue();

    Plan.Wrr wary = (Plan.Wrr) PlanBuilder.plan(
        unknownTarget(io.healthmesh.config.UnknownTargetBehavior.COUNT_UNHEALTHY, 0), targets);
    assertThat(wary.items().get(0).addresses().get(0))
        .isEqualTo(new Address("10.2.0.100", true, HealthStatus.UNKNOWN, HealthStatus.UNHEALTHY));
    assertThat(wary.items().get(0).healthy()).containsExactly("10.9.9.9");
  }

  @Test
  void lastKnownCountsUntilItsMaximumAge_thenAsTheDefault_R_OP_2() {
    ResourceRecordSet rrs = unknownTarget(io.healthmesh.config.UnknownTargetBehavior.LAST_KNOWN, 60);
    lastKnown.put("EXTERNAL_ENDPOINT|10.2.0.100", new PlanBuilder.LastKnown(HealthStatus.UNHEALTHY, 1_000_000));
    now = 1_000_000 + 59_999;
    Plan.Wrr young = (Plan.Wrr) PlanBuilder.plan(rrs, remembering);
    assertThat(young.items().get(0).healthy()).as("still down, as last known").containsExactly("10.9.9.9");
    assertThat(changes).as("the plan changes when the last known state is too old").containsExactly(1_060_000L);

    now = 1_060_000;
    changes.clear();
    Plan.Wrr old = (Plan.Wrr) PlanBuilder.plan(rrs, remembering);
    assertThat(old.items().get(0).healthy()).containsExactly("10.2.0.100", "10.9.9.9");
    assertThat(changes).isEmpty();

    lastKnown.clear();
    assertThat(((Plan.Wrr) PlanBuilder.plan(rrs, remembering)).items().get(0).healthy()).as("never known")
        .containsExactly("10.2.0.100", "10.9.9.9");
  }

  static HealthCheckedTargets lbAndExternal() {
    return HealthCheckedTargets.newBuilder()
        .setInternalLoadBalancers(List.of(LoadBalancerTarget.newBuilder().setForwardingRule("fr-orders").build()))
        .setExternalEndpoints(List.of("10.2.0.100")).build();
  }

  @Test
  void marksRrdatasOfLoadBalancersAndExternalEndpointsAsChecked_R_DNSHC_1() {
    health.put("FORWARDING_RULE|fr-orders", HealthStatus.UNHEALTHY);
    health.put("EXTERNAL_ENDPOINT|10.2.0.100", HealthStatus.HEALTHY);
    ResourceRecordSet rrs = ResourceRecordSet.newBuilder().setZone("internal").setName("api.example.internal.")
        .setType("A").setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            WrrItem.newBuilder().setWeight(1).setRrdatas(List.of("10.1.0.100", "10.2.0.100", "10.9.9.9"))
                .setHealthCheckedTargets(lbAndExternal()).build())).build()).build()).build();

    Plan.Wrr plan = (Plan.Wrr) PlanBuilder.plan(rrs, targets);

    assertThat(plan.items().get(0).addresses()).containsExactly(
        new Address("10.1.0.100", true, HealthStatus.UNHEALTHY),
        new Address("10.2.0.100", true, HealthStatus.HEALTHY),
        Address.unchecked("10.9.9.9"));
  }

  @Test
  void matchesAnAddressSpelledDifferentlyInTheCheckAndTheRrdata_R_DNSHC_1() {
    health.put("EXTERNAL_ENDPOINT|fd00:113::11", HealthStatus.UNHEALTHY);
    ResourceRecordSet rrs = ResourceRecordSet.newBuilder().setZone("internal").setName("v6.example.internal.")
        .setType("AAAA").setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            WrrItem.newBuilder().setWeight(1).setRrdatas(List.of("fd00:113::11", "fd00:113::12"))
                .setHealthCheckedTargets(HealthCheckedTargets.newBuilder()
                    .setExternalEndpoints(List.of("FD00:113:0:0::11")).build()).build())).build()).build()).build();

    Plan.Wrr plan = (Plan.Wrr) PlanBuilder.plan(rrs, targets);

    assertThat(plan.items().get(0).addresses()).containsExactly(
        new Address("fd00:113::11", true, HealthStatus.UNHEALTHY), Address.unchecked("fd00:113::12"));
    List<String> keys = new java.util.ArrayList<>();
    PlanBuilder.checkedTargets(rrs, (kind, name) -> keys.add(kind + "|" + name));
    assertThat(keys).containsExactly("EXTERNAL_ENDPOINT|fd00:113::11"); // the name the topology publishes
  }

  @Test
  void treatsMissingHealthAsUnknownAndHealthyButCountsIt() {
    ResourceRecordSet rrs = ResourceRecordSet.newBuilder().setZone("internal").setName("db.example.internal.")
        .setType("A").setRoutingPolicy(RoutingPolicy.newBuilder().setPrimaryBackup(PrimaryBackupPolicy.newBuilder()
            .setPrimaryTargets(lbAndExternal()).setTrickleTraffic(0)
            .setBackupGeoTargets(GeoPolicy.newBuilder().setItems(List.of(GeoItem.newBuilder().setLocation("us-east4")
                .setRrdatas(List.of("10.4.0.1")).build())).build()).build()).build()).build();

    Decision d = new RoutingEngine(Regions.builtIn()).answer(PlanBuilder.plan(rrs, targets), "us-east1", new SplittableRandom(1));

    assertThat(d.answer()).containsExactlyInAnyOrder("10.1.0.100", "10.2.0.100");
    assertThat(d.unknownReturned()).isEqualTo(2);
  }

  @Test
  void regionTableRefusesBadLines_andMeasuresDistances() throws Exception {
    Regions regions = Regions.builtIn();
    assertThat(regions.distance("us-east1", "us-east4")).isLessThan(regions.distance("us-east1", "europe-west1"));
    assertThat(regions.distance("us-east1", "us-east1")).isZero();
    assertThat(regions.distance("us-east1", "mars-north1")).isInfinite();
    assertThatThrownBy(() -> Regions.parse(new ByteArrayInputStream("a,1,2\nb,north,2\nc,95,0\n".getBytes(StandardCharsets.UTF_8))))
        .hasMessageContaining("line 2").hasMessageContaining("line 3");
  }
}
