package io.healthmesh.streams;

import static io.healthmesh.streams.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.HealthSource;
import io.healthmesh.config.LoadBalancerType;
import io.healthmesh.config.LoadBalancingScheme;
import io.healthmesh.events.DeadLetter;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.AvroSerializer;
import io.healthmesh.schemas.Topics;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Bad input is dead-lettered with its reason and bytes; bad configuration never replaces good. */
class RejectionTest {
  private final Harness h = new Harness();

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void poisonPillIsDeadLetteredAndProcessingGoesOn() {
    h.service(Harness.service("orders", 1));
    byte[] garbage = {7, 1, 2, 3, 4, 5};
    h.raw(Topics.PROBE_RESULTS.name(), "orders", garbage, T0);
    byte[] good = new AvroSerializer<ProbeResult>(h.registry, false).serialize(Topics.PROBE_RESULTS.name(),
        ProbeResult.newBuilder().setBackendService("orders").setEndpointId("vm-1").setSuccess(true).setEventTime(T0).build());
    h.raw(Topics.PROBE_RESULTS.name(), "orders", Arrays.copyOf(good, good.length - 3), T0);
    h.probeAll("orders", List.of("vm-1"), true, 2, T0);

    h.drain();
    assertThat(h.probeDeadLetters).hasSize(2);
    DeadLetter pill = h.probeDeadLetters.get(0);
    assertThat(pill.getReason()).isEqualTo(DeadLetterReason.MALFORMED);
    assertThat(pill.getMessage()).contains("magic byte").contains("partition 0 offset 0");
    assertThat(pill.getValue()).isEqualTo(ByteBuffer.wrap(garbage));
    assertThat(pill.getSourceOffset()).isEqualTo(0);
    assertThat(h.probeDeadLetters.get(1).getMessage()).contains("TRUNCATED");
    assertThat(h.status(EntityKind.ENDPOINT, "orders/vm-1")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.counter("healthmesh.dead.letters", "topic", "probe-results", "reason", "MALFORMED")).isEqualTo(2);
  }

  @Test
  void probeFarInTheFutureOrWithoutEndpointIsDeadLettered() {
    h.service(Harness.service("orders", 1));
    ProbeResult future = ProbeResult.newBuilder().setBackendService("orders").setEndpointId("vm-1").setSuccess(true)
        .setEventTime(T0.plusSeconds(3600)).build();
    h.raw(Topics.PROBE_RESULTS.name(), "orders",
        new AvroSerializer<ProbeResult>(h.registry, false).serialize(Topics.PROBE_RESULTS.name(), future), T0);
    ProbeResult noEndpoint = ProbeResult.newBuilder().setBackendService("orders").setSuccess(true).setEventTime(T0).build();
    h.raw(Topics.PROBE_RESULTS.name(), "orders",
        new AvroSerializer<ProbeResult>(h.registry, false).serialize(Topics.PROBE_RESULTS.name(), noEndpoint), T0);
    h.drain();
    assertThat(h.probeDeadLetters).extracting(DeadLetter::getReason).containsOnly(DeadLetterReason.INVALID);
    assertThat(h.probeDeadLetters.get(0).getMessage()).contains("after the record's time", "R-EP-4");
    assertThat(h.probeDeadLetters.get(1).getMessage()).contains("endpointId is missing");
  }

  @Test
  void invalidPolicyIsRejectedAndPreviousStays_R_AGG_1() {
    h.service(Harness.service("orders", 4));
    h.policy("strict", 75, 3, T0);
    h.source("src", "orders", "strict");
    h.probeAll("orders", Harness.vms(1, 3), true, 2, T0);
    h.probeAll("orders", List.of("vm-4"), false, 2, T0);
    h.policy("strict", 101, -1, T0.plusSeconds(5));

    DeadLetter rejected = onlyConfigDeadLetter();
    assertThat(rejected.getMessage()).contains("healthyPercentThreshold: 101 is outside 0..100 (R-AGG-1)")
        .contains("minHealthyThreshold: -1 must be at least 0 (R-AGG-1)").contains("previous version stays");
    assertThat(rejected.getSourceTopic()).isEqualTo(Topics.HEALTH_AGGREGATION_POLICIES.name());
    assertThat(rejected.getSourceOffset()).isEqualTo(1);
    assertThat(h.status(EntityKind.HEALTH_SOURCE, "src")).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void invalidThresholdsOfBackendServiceAreRejected_R_EP_2() {
    h.service(Harness.service("orders", 1, 0, 2));
    assertThat(onlyConfigDeadLetter().getMessage()).contains("healthyThreshold: 0 must be at least 1 (R-EP-2)");
    h.probe("orders", "vm-1", true, T0);
    h.drain();
    assertThat(h.probeDeadLetters).hasSize(1); // the service was never accepted: R-EP-6
  }

  @Test
  void sourceOnExternalOrNonNegBackendsIsRejected_R_CH_2() {
    h.service(BackendService.newBuilder(Harness.service("ext", 1))
        .setLoadBalancingScheme(LoadBalancingScheme.EXTERNAL_MANAGED).setBackendType(BackendType.INTERNET_NEG).build());
    h.policy("p", 60, 1, T0);
    h.source("src", "ext", "p");
    assertThat(onlyConfigDeadLetter().getMessage()).contains("scheme EXTERNAL_MANAGED").contains("INTERNET_NEG")
        .contains("(R-CH-2)");
    assertThat(h.state(EntityKind.HEALTH_SOURCE, "src")).isNull();
  }

  @Test
  void compositeWithZeroOrElevenSourcesIsRejected_R_CH_3() {
    h.policy("p", 60, 1, T0);
    List<String> eleven = IntStream.rangeClosed(1, 11).mapToObj(i -> "src-" + i).toList();
    for (String s : eleven) {
      h.service(Harness.service("svc-" + s, 1));
      h.source(s, "svc-" + s, "p");
    }
    h.composite("too-many", eleven, "fr");
    h.composite("none", List.of(), "fr2");
    h.drain();
    assertThat(h.configDeadLetters).hasSize(2);
    assertThat(h.configDeadLetters.get(0).getMessage()).contains("11 sources").contains("(R-CH-3)");
    assertThat(h.configDeadLetters.get(1).getMessage()).contains("0 sources").contains("(R-CH-3)");
    assertThat(h.state(EntityKind.COMPOSITE_HEALTH_CHECK, "too-many")).isNull();
    h.composite("ten", eleven.subList(0, 10), "fr");
    assertThat(h.state(EntityKind.COMPOSITE_HEALTH_CHECK, "ten")).isNotNull();
  }

  @Test
  void compositeStyleWithoutItsCountOrWithAStrangeCriticalSourceIsRejected_R_OP_4() {
    h.policy("p", 60, 1, T0);
    for (String s : List.of("a", "b")) {
      h.service(Harness.service("svc-" + s, 1));
      h.source(s, "svc-" + s, "p");
    }
    h.composite(io.healthmesh.config.CompositeHealthCheck.newBuilder().setName("c").setRegion(Harness.REGION)
        .setHealthSources(List.of("a", "b")).setHealthDestination("fr")
        .setStyle(io.healthmesh.config.CompositeStyle.AT_LEAST_N).setMinHealthySources(3)
        .setCriticalSources(List.of("z", "a", "a")).build());
    h.composite(io.healthmesh.config.CompositeHealthCheck.newBuilder().setName("d").setRegion(Harness.REGION)
        .setHealthSources(List.of("a")).setHealthDestination("fr2")
        .setStyle(io.healthmesh.config.CompositeStyle.ANY).setMinHealthySources(1).build());
    h.drain();
    assertThat(h.configDeadLetters).hasSize(2);
    assertThat(h.configDeadLetters.get(0).getMessage())
        .contains("minHealthySources: 3 with style AT_LEAST_N must be 1 to the number of sources, 2 (R-OP-4)")
        .contains("criticalSources: 'z' is not one of healthSources (R-OP-4)")
        .contains("criticalSources: 'a' is listed twice (R-OP-4)");
    assertThat(h.configDeadLetters.get(1).getMessage())
        .contains("minHealthySources: only with style AT_LEAST_N, not ANY (R-OP-4)");
    assertThat(h.state(EntityKind.COMPOSITE_HEALTH_CHECK, "c")).isNull();
    assertThat(h.state(EntityKind.COMPOSITE_HEALTH_CHECK, "d")).isNull();
  }

  @Test
  void secondCompositeOnOneForwardingRuleIsRejected_R_CH_5() {
    h.service(Harness.service("orders", 1));
    h.policy("p", 60, 1, T0);
    h.source("src", "orders", "p");
    h.forwardingRule("fr", "orders", LoadBalancerType.regionalL7ilb);
    h.composite("first", List.of("src"), "fr");
    h.composite("second", List.of("src"), "fr");
    assertThat(onlyConfigDeadLetter().getMessage()).contains("already the destination of composite health check 'first' (R-CH-5)");
  }

  @Test
  void compositeStateAsSourceIsRejected_R_CH_6() {
    h.consumer("consumer", List.of(Harness.neg("neg", "us-east1", "fr")));
    h.policy("p", 60, 1, T0);
    h.source("nested", "consumer", "p");
    assertThat(onlyConfigDeadLetter().getMessage()).contains("(R-CH-6)");
  }

  @Test
  void resourcesInAnotherRegionOrProjectAreRejected_R_CH_7() {
    h.service(BackendService.newBuilder(Harness.service("orders", 1)).setRegion("europe-west1").build());
    h.policy("p", 60, 1, T0);
    h.source("src", "orders", "p");
    assertThat(onlyConfigDeadLetter().getMessage()).contains("backendService: in default/europe-west1, not default/us-east1")
        .contains("(R-CH-7)");

    h.service(Harness.service("orders2", 1));
    h.source("src2", "orders2", "p");
    h.config(Topics.COMPOSITE_HEALTH_CHECKS, "chc", CompositeHealthCheck.newBuilder().setName("chc")
        .setRegion(Harness.REGION).setProject("other").setHealthSources(List.of("src2")).setHealthDestination("fr").build(), T0);
    h.drain();
    assertThat(h.configDeadLetters.get(1).getMessage()).contains("healthSources[src2]").contains("(R-CH-7)");
  }

  @Test
  void recordWhoseNameDiffersFromItsKeyIsRejected() {
    h.config(Topics.HEALTH_SOURCES, "a", HealthSource.newBuilder().setName("b").setRegion(Harness.REGION)
        .setBackendService("x").setHealthAggregationPolicy("y").build(), T0);
    assertThat(onlyConfigDeadLetter().getMessage()).contains("name: 'b' differs from the record key 'a'");
  }

  private DeadLetter onlyConfigDeadLetter() {
    h.drain();
    assertThat(h.configDeadLetters).hasSize(1);
    DeadLetter d = h.configDeadLetters.get(0);
    assertThat(d.getReason()).isEqualTo(DeadLetterReason.INVALID);
    assertThat(d.getValue()).isNotNull();
    return d;
  }

  @Test
  void deadLettersTheService_whenItsNameIsNotAnRfc1035Label() {
    for (String name : List.of("", "evil/name", "UPPER case name")) {
      h.config(Topics.BACKEND_SERVICES, name, BackendService.newBuilder(Harness.service("x", 1)).setName(name).build(), T0);
    }

    h.drain();
    assertThat(h.configDeadLetters).hasSize(3).allSatisfy(d -> {
      assertThat(d.getReason()).isEqualTo(DeadLetterReason.INVALID);
      assertThat(d.getMessage()).contains("is not a valid name").contains("RFC 1035 label");
    });
  }
}
