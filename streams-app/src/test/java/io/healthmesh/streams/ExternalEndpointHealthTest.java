package io.healthmesh.streams;

import static io.healthmesh.streams.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.output.Emitter;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** External endpoints: addresses that record sets health check directly (R-DNSHC-1, R-DNSHC-4). */
class ExternalEndpointHealthTest {
  private final Harness h = new Harness();

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void externalEndpointNamedByARecordSetGetsHealth_R_DNSHC_1() {
    h.wrrWithExternalEndpoints("api.example.internal.", List.of("10.2.0.100", "10.2.0.101"), null, T0);
    h.externalProbe("10.2.0.100", true, T0.plusSeconds(1));
    h.externalProbe("10.2.0.100", true, T0.plusSeconds(31));
    h.externalProbe("10.2.0.101", false, T0.plusSeconds(1));
    h.externalProbe("10.2.0.101", false, T0.plusSeconds(31));

    assertThat(h.status(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.100")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.status(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.101")).isEqualTo(HealthStatus.UNHEALTHY);
    HealthTransition t = h.transitions(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.101").get(0);
    assertThat(t.getCause().getPolicyName()).isEqualTo("internal/api.example.internal./A");
  }

  @Test
  void judgesAnAddressUnderOneSpelling_whateverTheRecordSetAndTheProberWrite_R_DNSHC_1() {
    h.wrrWithExternalEndpoints("v6.example.internal.", List.of("FD00:113:0:0::11"), null, T0);
    h.externalProbe("fd00:113::11", false, T0.plusSeconds(1));
    h.externalProbe("fd00:0113:0:0:0:0:0:11", false, T0.plusSeconds(31));

    assertThat(h.status(EntityKind.EXTERNAL_ENDPOINT, "fd00:113::11")).isEqualTo(HealthStatus.UNHEALTHY);
    h.drain();
    assertThat(h.probeDeadLetters).isEmpty();
    assertThat(h.stateLog).noneMatch(kv -> kv.key.getName().startsWith("FD00") || kv.key.getName().contains("0113"));
  }

  @Test
  void defaultsTo30SecondChecks_soStaleAfter90Seconds_R_DNSHC_4() {
    h.wrrWithExternalEndpoints("api.example.internal.", List.of("10.2.0.100"), null, T0);
    h.externalProbe("10.2.0.100", true, T0.plusSeconds(1));
    h.externalProbe("10.2.0.100", true, T0.plusSeconds(31));
    h.heartbeat("10.2.0.100", T0.plusSeconds(90));
    assertThat(h.status(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.100")).as("89 s of silence").isEqualTo(HealthStatus.HEALTHY);
    h.heartbeat("10.2.0.100", T0.plusSeconds(125));
    assertThat(h.status(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.100")).isEqualTo(HealthStatus.UNKNOWN);
    HealthTransition stale = h.transitions(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.100").get(1);
    assertThat(stale.getCause().getReason()).isEqualTo(TransitionReason.STALE);
    assertThat(stale.getEventTime()).isEqualTo(T0.plusSeconds(121));
  }

  @Test
  void staleTargetStateSaysWhatItWasBefore_andForgetsItOnceKnownAgain_R_OP_2() {
    h.wrrWithExternalEndpoints("api.example.internal.", List.of("10.2.0.100"), null, T0);
    h.externalProbe("10.2.0.100", false, T0.plusSeconds(1));
    h.externalProbe("10.2.0.100", false, T0.plusSeconds(31));
    assertThat(h.state(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.100").getLastKnownStatus()).isNull();
    h.heartbeat("10.2.0.100", T0.plusSeconds(125));
    var stale = h.state(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.100");
    assertThat(stale.getStatus()).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(stale.getLastKnownStatus()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(stale.getSince()).isEqualTo(T0.plusSeconds(121));
    h.externalProbe("10.2.0.100", true, T0.plusSeconds(130));
    h.externalProbe("10.2.0.100", true, T0.plusSeconds(160));
    var known = h.state(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.100");
    assertThat(known.getStatus()).isEqualTo(HealthStatus.HEALTHY);
    assertThat(known.getLastKnownStatus()).isNull();
  }

  @Test
  void lastKnownStaysWhileAnAggregateStaysUnknown_R_OP_2() {
    assertThat(Emitter.lastKnown(HealthStatus.UNKNOWN, HealthStatus.HEALTHY, null)).isEqualTo(HealthStatus.HEALTHY);
    assertThat(Emitter.lastKnown(HealthStatus.UNKNOWN, HealthStatus.UNKNOWN, HealthStatus.UNHEALTHY))
        .as("counts changed, still UNKNOWN").isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(Emitter.lastKnown(HealthStatus.UNKNOWN, HealthStatus.UNKNOWN, null)).as("never known").isNull();
    assertThat(Emitter.lastKnown(HealthStatus.HEALTHY, HealthStatus.UNKNOWN, HealthStatus.UNHEALTHY)).isNull();
  }

  @Test
  void usesTheRecordSetsOwnCheck_whenGiven_R_DNSHC_4() {
    h.wrrWithExternalEndpoints("api.example.internal.", List.of("10.2.0.100"),
        HealthCheckSpec.newBuilder().setCheckIntervalSec(10).setHealthyThreshold(1).build(), T0);
    h.externalProbe("10.2.0.100", true, T0.plusSeconds(1));
    assertThat(h.status(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.100")).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void probeForAnAddressNoRecordSetChecksIsDeadLettered_R_EP_6() {
    h.externalProbe("10.9.9.9", true, T0);
    h.drain();
    assertThat(h.probeDeadLetters).singleElement().satisfies(d -> {
      assertThat(d.getReason()).isEqualTo(DeadLetterReason.UNKNOWN_ENTITY);
      assertThat(d.getMessage()).contains("not health checked by any record set").contains("R-EP-6");
    });
  }

  @Test
  void stateIsDeletedWhenNoRecordSetChecksTheAddressAnyMore() {
    h.wrrWithExternalEndpoints("a.example.internal.", List.of("10.2.0.100"), null, T0);
    h.wrrWithExternalEndpoints("b.example.internal.", List.of("10.2.0.100"), null, T0);
    h.externalProbe("10.2.0.100", true, T0.plusSeconds(1));
    h.externalProbe("10.2.0.100", true, T0.plusSeconds(2));
    h.wrrWithExternalEndpoints("a.example.internal.", List.of(), null, T0.plusSeconds(3));
    assertThat(h.status(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.100")).as("b still checks it").isEqualTo(HealthStatus.HEALTHY);
    h.config(Topics.RESOURCE_RECORD_SETS, "internal/b.example.internal./A", null, T0.plusSeconds(4));
    assertThat(h.state(EntityKind.EXTERNAL_ENDPOINT, "10.2.0.100")).isNull();
    h.externalProbe("10.2.0.100", true, T0.plusSeconds(5));
    h.drain();
    assertThat(h.probeDeadLetters).hasSize(1);
  }

  @Test
  void recordSetWithANameForAnAddressIsRejected_R_DNSHC_1() {
    h.wrrWithExternalEndpoints("api.example.internal.", List.of("db.example.com"), null, T0);
    h.drain();
    assertThat(h.configDeadLetters).singleElement().satisfies(d ->
        assertThat(d.getMessage()).contains("[db.example.com] are not IP addresses (R-DNSHC-1)"));
  }
}
