package io.healthmesh.streams.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatusQueryTest {
  @Test
  void asksWhatItWasGiven_whenWrittenAsAUrlAndReadBack() {
    StatusQuery query = new StatusQuery(Set.of(EntityKind.ENDPOINT, EntityKind.EXTERNAL_ENDPOINT), "orders use1/*&x=1",
        Set.of(HealthStatus.UNHEALTHY));
    assertThat(StatusQuery.parse(query.toQueryString())).isEqualTo(query);
    assertThat(StatusQuery.parse(query.toQueryString() + "&scope=local")).as("unknown parameters are ignored")
        .isEqualTo(query);
    assertThat(StatusQuery.parse(null)).isEqualTo(new StatusQuery(Set.of(), null, Set.of()));
  }

  @Test
  void matchesByKindNameAndState_whenEachNarrows() {
    StatusQuery query = new StatusQuery(Set.of(EntityKind.ENDPOINT), "orders-*/vm-1", Set.of(HealthStatus.HEALTHY));
    assertThat(query.namePrefix()).isEqualTo("orders-");
    assertThat(query.matches(new EntityKey(EntityKind.ENDPOINT, "orders-use1/vm-1"), HealthStatus.HEALTHY)).isTrue();
    assertThat(query.matches(new EntityKey(EntityKind.ENDPOINT, "orders-use1/vm-10"), HealthStatus.HEALTHY)).isFalse();
    assertThat(query.matches(new EntityKey(EntityKind.ENDPOINT, "orders-use1/vm-1"), HealthStatus.UNKNOWN)).isFalse();
    assertThat(query.matches(new EntityKey(EntityKind.BACKEND_SERVICE, "orders-use1/vm-1"), HealthStatus.HEALTHY))
        .isFalse();
    assertThat(new StatusQuery(Set.of(), "a.b", Set.of()).matches(new EntityKey(EntityKind.ENDPOINT, "axb"),
        HealthStatus.HEALTHY)).as("only * is special").isFalse();
    assertThat(new StatusQuery(Set.of(), null, Set.of()).kindsAsked()).doesNotContain(EntityKind.OTHER)
        .contains(EntityKind.ENDPOINT, EntityKind.DRY_RUN_COMPOSITE_HEALTH_CHECK);
  }

  @Test
  void namesWhatExists_whenAKindOrStateIsUnknown() {
    assertThatThrownBy(() -> StatusQuery.parse("kind=ENDPOINTZ")).hasMessageContaining("unknown kind 'ENDPOINTZ'")
        .hasMessageContaining("EXTERNAL_ENDPOINT");
    assertThatThrownBy(() -> StatusQuery.parse("state=SICK")).hasMessageContaining("unknown state 'SICK'")
        .hasMessageContaining("HEALTHY");
  }
}
