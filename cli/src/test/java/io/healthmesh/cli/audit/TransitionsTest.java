package io.healthmesh.cli.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.TransitionCause;
import io.healthmesh.events.TransitionReason;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** R-AUD-1: the state of every entity the topics know at an instant. */
class TransitionsTest {
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  private static final EntityKey COMPOSITE = new EntityKey(EntityKind.COMPOSITE_HEALTH_CHECK, "new-chc");
  private static final EntityKey SOURCE = new EntityKey(EntityKind.HEALTH_SOURCE, "src");

  @Test
  void listsAnEntityThatNeverLeftUnknown_fromWhenHealthStateKnewIt_R_AUD_1() {
    Transitions t = new Transitions();
    t.add(transition(SOURCE, HealthStatus.UNKNOWN, HealthStatus.HEALTHY, T0.plusSeconds(5)));
    t.addState(SOURCE, false, T0.plusSeconds(5));
    t.addState(COMPOSITE, false, T0.plusSeconds(10));
    t.done();

    assertThat(t.all(T0.plusSeconds(7))).containsOnlyKeys("HEALTH_SOURCE/src");
    var later = t.all(T0.plusSeconds(60));
    assertThat(later).containsOnlyKeys("COMPOSITE_HEALTH_CHECK/new-chc", "HEALTH_SOURCE/src");
    Transitions.State composite = later.get("COMPOSITE_HEALTH_CHECK/new-chc");
    assertThat(composite.status()).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(composite.setBy()).isNull();
    assertThat(composite.since()).isEqualTo(T0.plusSeconds(10));
    assertThat(composite.version()).isZero();
    assertThat(later.get("HEALTH_SOURCE/src").since()).isEqualTo(T0.plusSeconds(5));
  }

  @Test
  void dropsAnEntity_afterItsTombstone_andKnowsItAgainWhenRecreated_R_AUD_1() {
    Transitions t = new Transitions();
    t.addState(COMPOSITE, false, T0);
    t.addState(COMPOSITE, true, T0.plusSeconds(30));
    t.done();
    assertThat(t.all(T0.plusSeconds(10))).containsKey("COMPOSITE_HEALTH_CHECK/new-chc");
    assertThat(t.all(T0.plusSeconds(40))).isEmpty();
    t.addState(COMPOSITE, false, T0.plusSeconds(50));
    assertThat(t.all(T0.plusSeconds(60)).get("COMPOSITE_HEALTH_CHECK/new-chc").since()).isEqualTo(T0.plusSeconds(50));
  }

  private static HealthTransition transition(EntityKey entity, HealthStatus from, HealthStatus to, Instant at) {
    return HealthTransition.newBuilder().setEntity(entity).setOldStatus(from).setNewStatus(to).setEventTime(at)
        .setVersion(1).setCause(TransitionCause.newBuilder().setReason(TransitionReason.PROBE).setDetail("").build())
        .build();
  }
}
