package io.healthmesh.edge.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.GeoItem;
import io.healthmesh.config.GeoPolicy;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.LoadBalancerTarget;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.PrimaryBackupPolicy;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.config.ZoneVisibility;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;
import org.xbill.DNS.Type;

class EdgeStateTest {
  private static final String KEY = "internal/api.example.internal./A";

  @Test
  void keepsThePreviousVersion_whenARecordSetBreaksARule() {
    // R-WRR-1: a weight above 1000 from any producer is not served
    EdgeState state = new EdgeState();
    state.zone("internal", ManagedZone.newBuilder().setName("internal").setDnsName("example.internal.")
        .setNetworks(List.of("127.0.0.0/8")).build());
    state.recordSet(KEY, wrr(10), 1);
    state.recordSet(KEY, wrr(2000), 2);
    assertThat(state.rejected()).isEqualTo(1);
    Zone zone = state.snapshot(true).zones().get(0);
    ResourceRecordSet served = zone.names().get(Name.fromConstantString("api.example.internal.")).get(Type.A).config();
    assertThat(served.getRoutingPolicy().getWrr().getItems().get(0).getWeight()).isEqualTo(10);
  }

  @Test
  void rejectsAZone_whenItsNetworksDoNotParse() {
    EdgeState state = new EdgeState();
    state.zone("internal", ManagedZone.newBuilder().setName("internal").setDnsName("example.internal.")
        .setNetworks(List.of("10.0.0.0/33")).build());
    assertThat(state.rejected()).isEqualTo(1);
    assertThat(state.snapshot(true).zones()).isEmpty();
  }

  @Test
  void keepsAPrivateZone_whenANewVersionWouldMakeItPublicUnderItsFailover_R_FO_6() {
    EdgeState state = new EdgeState();
    state.zone("internal", zone(ZoneVisibility.PRIVATE));
    state.recordSet(FAILOVER_KEY, failover(), 1);
    state.zone("internal", zone(ZoneVisibility.PUBLIC));

    assertThat(state.rejected()).isEqualTo(1);
    Zone served = state.snapshot(true).zones().get(0);
    assertThat(served.config().getVisibility()).as("the previous version stays in force").isEqualTo(ZoneVisibility.PRIVATE);
    assertThat(served.types(Name.fromConstantString("db.example.internal.")).get(Type.A)).isNotNull();
  }

  @Test
  void rejectsAFailoverOrLoadBalancerCheck_whenItsZoneInForceIsPublic_R_FO_6_R_DNSHC_5() {
    EdgeState state = new EdgeState();
    state.zone("internal", zone(ZoneVisibility.PUBLIC));
    state.recordSet(FAILOVER_KEY, failover(), 1);
    ResourceRecordSet lbChecked = ResourceRecordSet.newBuilder(wrr(10)).setRoutingPolicy(RoutingPolicy.newBuilder()
        .setWrr(WrrPolicy.newBuilder().setItems(List.of(WrrItem.newBuilder().setWeight(10).setRrdatas(List.of("10.1.0.1"))
            .setHealthCheckedTargets(lbTargets()).build())).build()).build()).build();
    state.recordSet(KEY, lbChecked, 2);

    assertThat(state.rejected()).isEqualTo(2);
    assertThat(state.snapshot(true).zones().get(0).recordSets()).isZero();
  }

  @Test
  void servesTheZoneButNotWhatItForbids_whenItArrivesAfterItsRecordSets_andServesThemAgainWhenAllowed() {
    EdgeState state = new EdgeState();
    state.recordSet(FAILOVER_KEY, failover(), 1);
    state.zone("internal", zone(ZoneVisibility.PUBLIC));
    assertThat(state.rejected()).isEqualTo(1);
    assertThat(state.snapshot(true).zones().get(0).recordSets()).as("as if read in the other order").isZero();

    state.zone("internal", null);
    state.zone("internal", zone(ZoneVisibility.PRIVATE));
    assertThat(state.snapshot(true).zones().get(0).types(Name.fromConstantString("db.example.internal.")))
        .as("a private zone allows it").isNotNull();
  }

  private static final String FAILOVER_KEY = "internal/db.example.internal./A";

  private static ManagedZone zone(ZoneVisibility visibility) {
    return ManagedZone.newBuilder().setName("internal").setDnsName("example.internal.").setVisibility(visibility)
        .setNetworks(visibility == ZoneVisibility.PRIVATE ? List.of("127.0.0.0/8") : List.of()).build();
  }

  private static HealthCheckedTargets lbTargets() {
    return HealthCheckedTargets.newBuilder().setInternalLoadBalancers(List.of(
        LoadBalancerTarget.newBuilder().setForwardingRule("fr-db").build())).build();
  }

  private static ResourceRecordSet failover() {
    return ResourceRecordSet.newBuilder().setZone("internal").setName("db.example.internal.").setType("A")
        .setRoutingPolicy(RoutingPolicy.newBuilder().setPrimaryBackup(PrimaryBackupPolicy.newBuilder()
            .setPrimaryTargets(lbTargets()).setTrickleTraffic(0).setBackupGeoTargets(GeoPolicy.newBuilder()
                .setItems(List.of(GeoItem.newBuilder().setLocation("us-east1").setRrdatas(List.of("10.2.0.1")).build()))
                .build()).build()).build()).build();
  }

  private static ResourceRecordSet wrr(int weight) {
    return ResourceRecordSet.newBuilder().setZone("internal").setName("api.example.internal.").setType("A")
        .setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            WrrItem.newBuilder().setWeight(weight).setRrdatas(List.of("10.1.0.1")).build())).build()).build()).build();
  }

  @Test
  void plansAgainWhenALastKnownStateGrowsTooOld_withoutANewRecord_R_OP_2() {
    long[] clock = {1_000_000};
    EdgeState state = new EdgeState(0, () -> clock[0]);
    state.zone("internal", zone(ZoneVisibility.PRIVATE));
    state.recordSet(KEY, ResourceRecordSet.newBuilder(wrr(10)).setRoutingPolicy(RoutingPolicy.newBuilder()
        .setWrr(WrrPolicy.newBuilder().setItems(List.of(WrrItem.newBuilder().setWeight(10)
            .setRrdatas(List.of("10.1.0.1", "10.1.0.2")).setHealthCheckedTargets(HealthCheckedTargets.newBuilder()
                .setExternalEndpoints(List.of("10.1.0.1")).build()).build())).build())
        .setUnknownTargets(io.healthmesh.config.UnknownTargetBehavior.LAST_KNOWN).setLastKnownMaxAgeSeconds(30).build())
        .build(), 1);
    state.health(io.healthmesh.events.EntityKind.EXTERNAL_ENDPOINT, "10.1.0.1", io.healthmesh.events.HealthStatus.UNKNOWN,
        new io.healthmesh.edge.routing.PlanBuilder.LastKnown(io.healthmesh.events.HealthStatus.UNHEALTHY, 990_000));
    assertThat(answerable(state.snapshot(true))).as("down 10 s ago, as last known").containsExactly("10.1.0.2");

    clock[0] = 1_019_999;
    assertThat(state.expire()).isFalse();
    clock[0] = 1_020_000;
    assertThat(state.expire()).as("30 s after it became UNKNOWN").isTrue();
    assertThat(answerable(state.snapshot(true))).as("counted as the default now").containsExactly("10.1.0.1", "10.1.0.2");
    assertThat(state.expire()).isFalse();

    state.health(io.healthmesh.events.EntityKind.EXTERNAL_ENDPOINT, "10.1.0.1", io.healthmesh.events.HealthStatus.HEALTHY,
        null);
    state.health(io.healthmesh.events.EntityKind.EXTERNAL_ENDPOINT, "10.1.0.1", io.healthmesh.events.HealthStatus.UNKNOWN,
        new io.healthmesh.edge.routing.PlanBuilder.LastKnown(io.healthmesh.events.HealthStatus.HEALTHY, 1_020_000));
    assertThat(state.changed()).isTrue();
    assertThat(answerable(state.snapshot(true))).containsExactly("10.1.0.1", "10.1.0.2");
  }

  private static List<String> answerable(Snapshot snapshot) {
    return snapshot.zones().get(0).types(Name.fromConstantString("api.example.internal.")).get(Type.A).plan()
        .buckets().get(0).healthy();
  }

  @Test
  void continuesTheSoaSerial_whenRebuiltFromScratch() {
    EdgeState first = new EdgeState();
    first.snapshot(true);
    first.snapshot(true);
    EdgeState again = new EdgeState(first.version());
    assertThat(again.snapshot(true).version()).isEqualTo(3);
  }
}
