package io.healthmesh.edge.explain;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.UnknownTargetBehavior;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.events.DecisionReason;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.RoutingPolicyType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordSetViewTest {
  private static final long NOW = 1_800_000_000_000L;

  /** Three endpoints weighted 1:1:2; the states are given per address. */
  private static ResourceRecordSet wrr(UnknownTargetBehavior unknown) {
    List<WrrItem> items = List.of(item(1, "10.0.0.1"), item(1, "10.0.0.2"), item(2, "10.0.0.3"));
    return ResourceRecordSet.newBuilder().setZone("z").setName("api.example.internal.").setType("A").setTtl(30)
        .setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(items).build())
            .setUnknownTargets(unknown).setLastKnownMaxAgeSeconds(3600).build())
        .build();
  }

  private static WrrItem item(int weight, String address) {
    return WrrItem.newBuilder().setWeight(weight).setRrdatas(List.of(address))
        .setHealthCheckedTargets(HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(address)).build())
        .build();
  }

  private static TargetStates states(Map<String, HealthStatus> health, Map<String, TargetStates.LastKnown> last) {
    return new TargetStates() {
      @Override
      public ForwardingRule forwardingRule(String name) {
        return null;
      }

      @Override
      public HealthStatus health(EntityKind kind, String name) {
        return health.getOrDefault(name, HealthStatus.UNKNOWN);
      }

      @Override
      public LastKnown lastKnown(EntityKind kind, String name) {
        return last.get(name);
      }

      @Override
      public long now() {
        return NOW;
      }
    };
  }

  @Test
  void sharesTheUnhealthyItemsWeightAmongTheRest_whenOneTargetIsDown() {
    RecordSetView view = RecordSetView.of(wrr(UnknownTargetBehavior.COUNT_HEALTHY), states(Map.of(
        "10.0.0.1", HealthStatus.HEALTHY, "10.0.0.2", HealthStatus.UNHEALTHY, "10.0.0.3", HealthStatus.HEALTHY), Map.of()));

    assertThat(view.policy()).isEqualTo(RoutingPolicyType.WRR);
    assertThat(view.buckets()).extracting(b -> b.addresses().get(0).health())
        .containsExactly(HealthStatus.HEALTHY, HealthStatus.UNHEALTHY, HealthStatus.HEALTHY);
    List<RecordSetView.Outcome> outcomes = view.outcomes("us-east1", 30_000);
    assertThat(outcomes).flatExtracting(RecordSetView.Outcome::answer).containsOnly("10.0.0.1", "10.0.0.3");
    // R-WRR-5: the down item's share goes to the others in proportion to their weights (1:2).
    double first = outcomes.stream().filter(o -> o.answer().equals(List.of("10.0.0.1")))
        .mapToDouble(RecordSetView.Outcome::probability).sum();
    assertThat(first).isBetween(0.30, 0.37);
    assertThat(outcomes).allSatisfy(o -> assertThat(o.rule()).isNotBlank());
  }

  @Test
  void saysWhatAnUnknownTargetIsCountedAs_whenItsLastKnownStateCounts() {
    RecordSetView view = RecordSetView.of(wrr(UnknownTargetBehavior.LAST_KNOWN),
        states(Map.of("10.0.0.1", HealthStatus.HEALTHY, "10.0.0.3", HealthStatus.HEALTHY),
            Map.of("10.0.0.2", new TargetStates.LastKnown(HealthStatus.UNHEALTHY, NOW - 60_000))));

    RecordSetView.AddressView unknown = view.buckets().get(1).addresses().get(0);
    assertThat(unknown.health()).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(unknown.countedAs()).isEqualTo(HealthStatus.UNHEALTHY); // R-OP-2
    assertThat(view.buckets().get(0).addresses().get(0).countedAs()).isNull();
    assertThat(view.outcomes("us-east1", 10_000)).flatExtracting(RecordSetView.Outcome::answer)
        .doesNotContain("10.0.0.2");
  }

  @Test
  void answersWithEveryItem_whenAllAreDownAndTheRecordSetFailsOpen() {
    RecordSetView view = RecordSetView.of(wrr(UnknownTargetBehavior.COUNT_HEALTHY), states(Map.of(
        "10.0.0.1", HealthStatus.UNHEALTHY, "10.0.0.2", HealthStatus.UNHEALTHY, "10.0.0.3", HealthStatus.UNHEALTHY),
        Map.of()));

    assertThat(view.outcomes("us-east1", 1_000)).extracting(RecordSetView.Outcome::reason)
        .containsOnly(DecisionReason.FAIL_OPEN); // R-WRR-8
  }
}
