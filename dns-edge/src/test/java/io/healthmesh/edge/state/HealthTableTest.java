package io.healthmesh.edge.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.edge.routing.PlanBuilder;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import org.junit.jupiter.api.Test;

class HealthTableTest {
  private static final EntityKind ENDPOINT = EntityKind.EXTERNAL_ENDPOINT;

  @Test
  void isUnknown_whenNeverPublishedOrGone() {
    HealthTable table = new HealthTable();
    assertThat(table.status(ENDPOINT, "10.0.0.1")).isEqualTo(HealthStatus.UNKNOWN);

    assertThat(table.put(ENDPOINT, "10.0.0.1", HealthStatus.HEALTHY, null)).isTrue();
    assertThat(table.put(ENDPOINT, "10.0.0.1", HealthStatus.HEALTHY, null)).as("the same state again").isFalse();
    assertThat(table.put(ENDPOINT, "10.0.0.1", null, null)).as("gone").isTrue();
    assertThat(table.status(ENDPOINT, "10.0.0.1")).isEqualTo(HealthStatus.UNKNOWN);
  }

  @Test
  void keepsTheLastKnownState_onlyWhileUnknown_R_OP_2() {
    HealthTable table = new HealthTable();
    PlanBuilder.LastKnown down = new PlanBuilder.LastKnown(HealthStatus.UNHEALTHY, 1_000);
    table.put(ENDPOINT, "10.0.0.1", HealthStatus.UNHEALTHY, null);

    assertThat(table.put(ENDPOINT, "10.0.0.1", HealthStatus.UNKNOWN, down)).isTrue();
    assertThat(table.lastKnown(ENDPOINT, "10.0.0.1")).isEqualTo(down);
    assertThat(table.put(ENDPOINT, "10.0.0.1", HealthStatus.UNKNOWN, new PlanBuilder.LastKnown(HealthStatus.UNHEALTHY,
        2_000))).as("UNKNOWN still, but since another time: routing may decide differently").isTrue();

    assertThat(table.put(ENDPOINT, "10.0.0.1", HealthStatus.HEALTHY, down)).isTrue();
    assertThat(table.lastKnown(ENDPOINT, "10.0.0.1")).as("known again").isNull();
    assertThat(table.lastKnown(EntityKind.FORWARDING_RULE, "10.0.0.1")).as("kinds apart").isNull();
  }
}
