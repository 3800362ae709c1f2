package io.healthmesh.edge.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
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

  private static ResourceRecordSet wrr(int weight) {
    return ResourceRecordSet.newBuilder().setZone("internal").setName("api.example.internal.").setType("A")
        .setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            WrrItem.newBuilder().setWeight(weight).setRrdatas(List.of("10.1.0.1")).build())).build()).build()).build();
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
