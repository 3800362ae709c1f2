package io.healthmesh.cli.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.config.GeoItem;
import io.healthmesh.config.GeoPolicy;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.PrimaryBackupPolicy;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.UnknownTargetBehavior;
import io.healthmesh.edge.explain.RecordSetView;
import io.healthmesh.events.DecisionReason;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.TransitionCause;
import io.healthmesh.events.TransitionReason;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What explain says, from configuration and transitions alone, through the edge's own planning. */
class ExplainerTest {
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  private static final EntityKey PRIMARY = new EntityKey(EntityKind.EXTERNAL_ENDPOINT, "10.6.0.1");

  private static Explainer explainer(UnknownTargetBehavior behavior, int maxAge) {
    ConfigHistory config = new ConfigHistory();
    config.add(ResourceKind.RESOURCE_RECORD_SET, "internal/db.example.internal./A", "config.resource-record-set", 0, 0,
        T0, ResourceRecordSet.newBuilder().setZone("internal").setName("db.example.internal.").setType("A").setTtl(5)
            .setRoutingPolicy(RoutingPolicy.newBuilder().setPrimaryBackup(PrimaryBackupPolicy.newBuilder()
                .setPrimaryTargets(HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of("10.6.0.1")).build())
                .setBackupGeoTargets(GeoPolicy.newBuilder().setItems(List.of(GeoItem.newBuilder()
                    .setLocation("us-east1").setRrdatas(List.of("10.6.0.2")).build())).build()).build())
                .setUnknownTargets(behavior).setLastKnownMaxAgeSeconds(maxAge).build()).build());
    Transitions transitions = new Transitions();
    transitions.addState(PRIMARY, false, T0);
    transitions.add(transition(HealthStatus.UNKNOWN, HealthStatus.UNHEALTHY, T0.plusSeconds(10), 1));
    transitions.add(transition(HealthStatus.UNHEALTHY, HealthStatus.UNKNOWN, T0.plusSeconds(100), 2));
    return new Explainer(config, transitions.done());
  }

  private static HealthTransition transition(HealthStatus from, HealthStatus to, Instant at, long version) {
    return HealthTransition.newBuilder().setEntity(PRIMARY).setOldStatus(from).setNewStatus(to).setEventTime(at)
        .setVersion(version).setCause(TransitionCause.newBuilder().setReason(TransitionReason.PROBE).build()).build();
  }

  private static Explainer.Explanation explain(Explainer x, Instant at) {
    return x.explain(null, "db.example.internal", "A", at, "us-east1");
  }

  @Test
  void explainsAnUnknownPrimaryCountedAsLastKnown_untilItsMaximumAge_R_OP_2() {
    Explainer x = explainer(UnknownTargetBehavior.LAST_KNOWN, 60);
    Explainer.Explanation young = explain(x, T0.plusSeconds(159));
    Explainer.AddressAt primary = young.buckets().get(0).addresses().get(0);
    assertThat(primary.health()).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(primary.countedAs()).as("down when it went UNKNOWN 59 s before").isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(young.outcomes()).singleElement().satisfies(o -> {
      assertThat(o.reason()).isEqualTo(DecisionReason.FAILOVER);
      assertThat(o.answer()).containsExactly("10.6.0.2");
    });

    Explainer.Explanation old = explain(x, T0.plusSeconds(160));
    assertThat(old.buckets().get(0).addresses().get(0).countedAs()).as("60 s on: the default").isNull();
    assertThat(old.outcomes()).extracting(RecordSetView.Outcome::reason).contains(DecisionReason.PRIMARY);
  }

  @Test
  void explainsAnUnknownPrimaryAsTheSeedDoes_byDefault_R_OP_2() {
    Explainer.Explanation seed = explain(explainer(UnknownTargetBehavior.COUNT_HEALTHY, 0), T0.plusSeconds(120));
    assertThat(seed.buckets().get(0).addresses().get(0).countedAs()).isNull();
    assertThat(seed.outcomes()).extracting(RecordSetView.Outcome::reason).contains(DecisionReason.PRIMARY);
    Explainer.Explanation wary = explain(explainer(UnknownTargetBehavior.COUNT_UNHEALTHY, 0), T0.plusSeconds(120));
    assertThat(wary.buckets().get(0).addresses().get(0).countedAs()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(wary.outcomes()).singleElement().extracting(RecordSetView.Outcome::reason).isEqualTo(DecisionReason.FAILOVER);
  }

  @Test
  void explainsADryRunBesideTheLiveRecordSet_R_OP_5() {
    ConfigHistory config = new ConfigHistory();
    ResourceRecordSet live = ResourceRecordSet.newBuilder().setZone("internal").setName("www.example.internal.")
        .setType("A").setTtl(5).setRrdatas(List.of("10.1.0.1")).build();
    config.add(ResourceKind.RESOURCE_RECORD_SET, "internal/www.example.internal./A", "config.resource-record-set", 0, 0,
        T0, live);
    config.add(ResourceKind.RESOURCE_RECORD_SET, "internal/www.example.internal./A/dry-run", "config.resource-record-set",
        0, 1, T0.plusSeconds(10), ResourceRecordSet.newBuilder(live).setRrdatas(List.of("10.1.0.2")).setDryRun(true)
            .build());
    Explainer x = new Explainer(config, new Transitions().done());

    Explainer.Explanation before = x.explain(null, "www.example.internal", "A", T0.plusSeconds(5), "us-east1");
    assertThat(before.dryRun()).isNull();
    Explainer.Explanation after = x.explain(null, "www.example.internal", "A", T0.plusSeconds(15), "us-east1");
    assertThat(after.recordSet()).isEqualTo("internal/www.example.internal./A");
    assertThat(after.outcomes()).singleElement().satisfies(o -> assertThat(o.answer()).containsExactly("10.1.0.1"));
    assertThat(after.dryRun().recordSet()).isEqualTo("internal/www.example.internal./A/dry-run");
    assertThat(after.dryRun().outcomes()).singleElement()
        .satisfies(o -> assertThat(o.answer()).containsExactly("10.1.0.2"));
  }
}
