package io.healthmesh.cli.config;

import static io.healthmesh.cli.config.Configs.problems;
import static io.healthmesh.cli.config.Configs.resources;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** One invalid document per rule that {@code apply} enforces, over the demo configuration. */
class ValidatorTest {
  private static final String SOURCE = """
      kind: HealthSource
      name: new-src
      region: us-east1
      backendService: orders-use1
      healthAggregationPolicy: majority-us-east1
      """;
  private static final String SERVICE = """
      kind: BackendService
      name: extra
      region: us-east1
      loadBalancingScheme: %s
      backendType: %s
      healthCheck: {protocol: TCP, port: 80}
      endpoints: [{id: vm-1, ipAddress: 10.1.0.50}]
      """;

  @Test
  void acceptsTheDemoConfiguration_whenAppliedOverNothing() {
    assertThat(Validator.check(new Catalog(), Configs.demo())).isEmpty();
  }

  @Test
  void acceptsTheDemoConfiguration_whenAppliedOverItself() {
    assertThat(Validator.check(Configs.demoCatalog(), Configs.demo())).isEmpty();
  }

  @Test
  void namesFileDocumentFieldAndRule_whenAHealthSourceNamesAMissingService() {
    // R-CH-1
    assertThat(problems(SOURCE.replace("backendService: orders-use1", "backendService: nope")))
        .containsExactly("test.yaml:1: backendService: no BackendService named 'nope' (R-CH-1)");
  }

  @Test
  void rejects_whenAHealthSourceNamesAMissingPolicy() {
    // R-CH-1
    assertThat(problems(SOURCE.replace("majority-us-east1", "lenient")))
        .containsExactly("test.yaml:1: healthAggregationPolicy: no HealthAggregationPolicy named 'lenient' (R-CH-1)");
  }

  @Test
  void rejects_whenTheSourceServiceHasAnExternalScheme() {
    // R-CH-2
    assertThat(problems(SERVICE.formatted("EXTERNAL_MANAGED", "GCE_VM_IP_PORT") + "---\n"
        + SOURCE.replace("orders-use1", "extra")))
        .containsExactly("test.yaml:2: backendService: 'extra' uses scheme EXTERNAL_MANAGED;"
            + " a health source needs INTERNAL or INTERNAL_MANAGED (R-CH-2)");
  }

  @Test
  void rejects_whenTheSourceServiceHasServerlessBackends() {
    // R-CH-2
    assertThat(problems(SERVICE.formatted("INTERNAL", "SERVERLESS") + "---\n" + SOURCE.replace("orders-use1", "extra")))
        .singleElement().asString().startsWith("test.yaml:2: backendService: 'extra' has backends of type SERVERLESS")
        .endsWith("(R-CH-2)");
  }

  @Test
  void rejects_whenACompositeHasNoSources() {
    // R-CH-3
    assertThat(problems(composite("[]", "fr-extra") + FORWARDING_RULE))
        .containsExactly("test.yaml:1: healthSources: 0 sources; a composite health check takes 1 to 10 (R-CH-3)");
  }

  @Test
  void rejects_whenACompositeHasElevenSources() {
    // R-CH-3
    String sources = IntStream.rangeClosed(1, 11).mapToObj(i -> SOURCE.replace("new-src", "src-" + i))
        .collect(Collectors.joining("---\n"));
    String names = IntStream.rangeClosed(1, 11).mapToObj(i -> "src-" + i).collect(Collectors.joining(", ", "[", "]"));
    assertThat(problems(sources + "---\n" + composite(names, "fr-extra") + FORWARDING_RULE))
        .containsExactly("test.yaml:12: healthSources: 11 sources; a composite health check takes 1 to 10 (R-CH-3)");
  }

  @Test
  void accepts_whenACompositeHasTenSources() {
    // R-CH-3
    String sources = IntStream.rangeClosed(1, 10).mapToObj(i -> SOURCE.replace("new-src", "src-" + i))
        .collect(Collectors.joining("---\n"));
    String names = IntStream.rangeClosed(1, 10).mapToObj(i -> "src-" + i).collect(Collectors.joining(", ", "[", "]"));
    assertThat(problems(sources + "---\n" + composite(names, "fr-extra") + FORWARDING_RULE)).isEmpty();
  }

  @Test
  void rejects_whenACompositeStyleLacksItsCountOrNamesAnUnknownCriticalSource() {
    // R-OP-4
    String styled = composite("[orders-use1-src]", "fr-extra")
        + "style: AT_LEAST_N\nminHealthySources: 2\ncriticalSources: [orders-euw1-src]\n";
    assertThat(problems(styled + FORWARDING_RULE)).containsExactly(
        "test.yaml:1: minHealthySources: 2 with style AT_LEAST_N must be 1 to the number of sources, 1 (R-OP-4)",
        "test.yaml:1: criticalSources: 'orders-euw1-src' is not one of healthSources (R-OP-4)");
    assertThat(problems(composite("[orders-use1-src]", "fr-extra") + "style: ANY\ncriticalSources: [orders-use1-src]\n"
        + FORWARDING_RULE)).isEmpty();
  }

  @Test
  void rejects_whenTheDestinationIsMissing() {
    // R-CH-3
    assertThat(problems(composite("[orders-use1-src]", "fr-nope")))
        .containsExactly("test.yaml:1: healthDestination: no ForwardingRule named 'fr-nope' (R-CH-3)");
  }

  @Test
  void rejectsTheNewcomer_whenAForwardingRuleIsAlreadyADestination() {
    // R-CH-5
    assertThat(problems(composite("[orders-use1-src]", "fr-orders-use1")))
        .containsExactly("test.yaml:1: healthDestination: forwarding rule 'fr-orders-use1' is already the destination"
            + " of composite health check 'orders-use1-chc' (R-CH-5)");
  }

  @Test
  void accepts_whenADryRunCompositeSharesTheLiveOnesDestination_R_OP_5() {
    assertThat(problems(composite("[orders-use1-src]", "fr-orders-use1") + "dryRun: true\n")).isEmpty();
    assertThat(problems(composite("[orders-use1-src]", "fr-orders-use1") + "dryRun: true\n---\n"
        + composite("[orders-use1-src]", "fr-orders-use1").replace("extra-chc", "another-chc") + "dryRun: true\n"))
        .as("dry runs hold no destination, among themselves either").isEmpty();
  }

  @Test
  void rejects_whenACompositeNamesAnotherCompositeAsSource() {
    // R-CH-6
    assertThat(problems(composite("[orders-use1-chc]", "fr-extra") + FORWARDING_RULE))
        .containsExactly("test.yaml:1: healthSources: 'orders-use1-chc' is a composite health check;"
            + " composites cannot be nested (R-CH-6)");
  }

  @Test
  void rejects_whenASourceUsesAServiceFedByACompositeState() {
    // R-CH-6
    assertThat(problems(SERVICE.formatted("INTERNAL_MANAGED", "PRIVATE_SERVICE_CONNECT") + "---\n"
        + SOURCE.replace("orders-use1", "extra")))
        .anySatisfy(p -> assertThat(p).startsWith("test.yaml:2: backendService:").endsWith("(R-CH-6)"));
  }

  @Test
  void rejects_whenACompositeSpansTwoRegions() {
    // R-CH-7
    assertThat(problems(composite("[orders-euw1-src]", "fr-extra") + FORWARDING_RULE))
        .containsExactly("test.yaml:1: healthSources[orders-euw1-src]: in default/europe-west1, not default/us-east1;"
            + " every resource of a composite health check is in one region and project (R-CH-7)");
  }

  @Test
  void rejects_whenASourceAndItsPolicyAreInDifferentRegions() {
    // R-CH-7
    assertThat(problems(SOURCE.replace("majority-us-east1", "majority-europe-west1")))
        .singleElement().asString().startsWith("test.yaml:1: healthAggregationPolicy: in default/europe-west1").endsWith("(R-CH-7)");
  }

  @Test
  void reportsTheExistingResource_whenAChangeBreaksIt() {
    // R-CH-7: moving the service breaks the source that is already applied
    assertThat(problems(SERVICE.formatted("INTERNAL_MANAGED", "GCE_VM_IP_PORT").replace("extra", "orders-use1")
        .replace("region: us-east1", "region: europe-west1")))
        .containsExactly("HealthSource/orders-use1-src (already applied): backendService: in default/europe-west1,"
            + " not default/us-east1; every resource of a composite health check is in one region and project (R-CH-7)");
  }

  @Test
  void rejects_whenPolicyThresholdsAreOutOfRange() {
    // R-AGG-1
    assertThat(problems("""
        kind: HealthAggregationPolicy
        name: odd
        healthyPercentThreshold: 101
        minHealthyThreshold: -1
        """)).containsExactly(
        "test.yaml:1: healthyPercentThreshold: 101 is outside 0..100 (R-AGG-1)",
        "test.yaml:1: minHealthyThreshold: -1 must be at least 0 (R-AGG-1)");
  }

  @Test
  void rejects_whenHealthCheckThresholdsAreZero() {
    // R-EP-2
    assertThat(problems(SERVICE.formatted("INTERNAL", "GCE_VM_IP").replace("port: 80}", "port: 80, healthyThreshold: 0}")))
        .containsExactly("test.yaml:1: healthCheck.healthyThreshold: 0 must be at least 1 (R-EP-2)");
  }

  @Test
  void checksTheDwellTimeAndFlapDamping_ofBackendAndExternalChecks_R_OP_3() {
    String service = SERVICE.formatted("INTERNAL", "GCE_VM_IP");
    assertThat(problems(service.replace("port: 80}", "port: 80, minDwellSec: 30, flapDamping: {maxFailures: 3}}")))
        .isEmpty();
    assertThat(problems(service.replace("port: 80}", "port: 80, minDwellSec: 3601, flapDamping: {maxFailures: 0,"
        + " windowSec: 0, suppressSec: 60, maxSuppressSec: 30}}"))).containsExactly(
        "test.yaml:1: healthCheck.minDwellSec: 3601 is outside 0..3600 (R-OP-3)",
        "test.yaml:1: healthCheck.flapDamping.maxFailures: 0 is outside 1..100 (R-OP-3)",
        "test.yaml:1: healthCheck.flapDamping.windowSec: 0 is outside 1..86400 (R-OP-3)",
        "test.yaml:1: healthCheck.flapDamping.maxSuppressSec: 30 is outside 60..86400 (R-OP-3)");
    String external = wrr(10, 10).replace("routingPolicy:\n", "routingPolicy:\n  healthCheck: {minDwellSec: -1}\n");
    assertThat(problems(external)).containsExactly(
        "test.yaml:1: routingPolicy.healthCheck.minDwellSec: -1 is outside 0..3600 (R-OP-3)");
  }

  @Test
  void checksTheProberQuorum_ofBackendAndExternalChecks_R_PQ_2() {
    String service = SERVICE.formatted("INTERNAL", "GCE_VM_IP");
    assertThat(problems(service.replace("port: 80}", "port: 80, proberQuorum: {healthyPercent: 67, minProbers: 2}}")))
        .isEmpty();
    assertThat(problems(service.replace("port: 80}", "port: 80, proberQuorum: {healthyPercent: 0, minProbers: 0}}")))
        .containsExactly(
            "test.yaml:1: healthCheck.proberQuorum.healthyPercent: 0 is outside 1..100 (R-PQ-2)",
            "test.yaml:1: healthCheck.proberQuorum.minProbers: 0 is outside 1..100 (R-PQ-2)");
    String external = wrr(10, 10).replace("routingPolicy:\n", "routingPolicy:\n  healthCheck: {proberQuorum: {healthyPercent: 101}}\n");
    assertThat(problems(external)).containsExactly(
        "test.yaml:1: routingPolicy.healthCheck.proberQuorum.healthyPercent: 101 is outside 1..100 (R-PQ-2)");
  }

  @Test
  void checksTheFieldsOfEachKindOfCheck_R_PQ_5() {
    String service = SERVICE.formatted("INTERNAL", "GCE_VM_IP");
    for (String fine : new String[] {"protocol: HTTP2, port: 443, host: api.example.com, response: ok",
        "protocol: GRPC, port: 50051, grpcServiceName: orders.v1.Orders, host: orders.internal",
        "protocol: SSL, port: 443, host: db.example.com", "protocol: HTTP, port: 80, response: '\"up\"'",
        "protocol: HTTP, port: 80, host: orders.example.internal"}) {
      assertThat(problems(service.replace("protocol: TCP, port: 80", fine))).as(fine).isEmpty();
    }
    assertThat(problems(service.replace("protocol: TCP, port: 80",
        "protocol: TCP, port: 80, response: ok, grpcServiceName: x, host: 'not a name'"))).containsExactly(
        "test.yaml:1: healthCheck.response: only HTTP, HTTPS and HTTP2 checks read a response body, not TCP (R-PQ-5)",
        "test.yaml:1: healthCheck.grpcServiceName: only GRPC checks ask a service, not TCP (R-PQ-5)",
        "test.yaml:1: healthCheck.host: a Host header and TLS server name; TCP checks send neither (R-PQ-5)",
        "test.yaml:1: healthCheck.host: 'not a name' is not a DNS name (R-PQ-5)");
    assertThat(problems(service.replace("protocol: TCP, port: 80", "protocol: HTTPS, response: " + "x".repeat(1025))))
        .containsExactly("test.yaml:1: healthCheck.response: 1025 characters; it is looked for in the first 1024"
            + " bytes of the body (R-PQ-5)");
  }

  @Test
  void rejectsAnExternalCheckIntervalAbove300s_andWarnsBelow30s_R_DNSHC_4() {
    String every = wrr(10, 10).replace("routingPolicy:\n", "routingPolicy:\n  healthCheck: {checkIntervalSec: %d}\n");
    assertThat(problems(every.formatted(400))).containsExactly("test.yaml:1: routingPolicy.healthCheck.checkIntervalSec:"
        + " 400 s is above the 300 s maximum for external endpoints (R-DNSHC-4)");
    assertThat(problems(every.formatted(0))).containsExactly(
        "test.yaml:1: routingPolicy.healthCheck.checkIntervalSec: 0 must be at least 1 (R-EP-4)");
    for (int allowed : new int[] {5, 30, 300}) {
      assertThat(problems(every.formatted(allowed))).isEmpty();
    }
    assertThat(Validator.warnings(Configs.resources(every.formatted(5)))).containsExactly(
        "test.yaml:1: routingPolicy.healthCheck.checkIntervalSec: 5 s is below the usual 30 s minimum for external"
            + " endpoints; accepted, and every endpoint of the record set is probed that often (R-DNSHC-4)");
    assertThat(Validator.warnings(Configs.resources(every.formatted(30)))).isEmpty();
    assertThat(Validator.warnings(Configs.resources(wrr(10, 10)))).isEmpty(); // no healthCheck: 30 s (R-DNSHC-4)
    assertThat(Validator.warnings(Configs.demo())).isEmpty();
  }

  @Test
  void matchesACheckedAddressToItsRrdataHoweverSpelled_andRejectsOnesThatMatchNone_R_DNSHC_1() {
    String v6 = """
        kind: ResourceRecordSet
        zone: internal
        name: v6.example.internal.
        type: AAAA
        ttl: 30
        routingPolicy:
          wrr:
            items:
              - weight: 1
                rrdatas: [fd00:113::11]
                healthCheckedTargets: {externalEndpoints: [%s]}
        """;
    assertThat(problems(v6.formatted("FD00:113:0:0::11"))).isEmpty();
    assertThat(problems(v6.formatted("fd00:113::12"))).containsExactly("test.yaml:1: routingPolicy.wrr.items[0]"
        + ".healthCheckedTargets.externalEndpoints: 'fd00:113::12' is none of the item's rrdatas, so its health would"
        + " decide nothing (R-DNSHC-1)");
    assertThat(problems(v6.formatted("'::::'"))).containsExactly("test.yaml:1: routingPolicy.wrr.items[0]"
        + ".healthCheckedTargets.externalEndpoints: '::::' is not an AAAA address (R-DNSHC-1)");
    assertThat(problems(v6.formatted("fd00:113::11").replace("[fd00:113::11]", "['::::']")))
        .anySatisfy(p -> assertThat(p).contains("'::::' is not valid AAAA data"));
  }

  @Test
  void rejects_whenAWeightIsAbove1000() {
    // R-WRR-1
    assertThat(problems(wrr(1001, 0))).containsExactly(
        "test.yaml:1: routingPolicy.wrr.items[0].weight: 1001 is outside 0..1000 (R-WRR-1)");
    assertThat(problems(wrr(1000, 0))).isEmpty();
    assertThat(problems(wrr(-1, 0))).singleElement().asString().endsWith("(R-WRR-1)");
  }

  @Test
  void checksTheMaximumAge_whenUnknownTargetsCountAsLastKnown_R_OP_2() {
    String base = wrr(50, 50);
    assertThat(problems(base + "  unknownTargets: COUNT_UNHEALTHY\n")).isEmpty();
    assertThat(problems(base + "  unknownTargets: LAST_KNOWN\n  lastKnownMaxAgeSeconds: 300\n")).isEmpty();
    assertThat(problems(base + "  unknownTargets: LAST_KNOWN\n")).containsExactly("test.yaml:1:"
        + " routingPolicy.lastKnownMaxAgeSeconds: 0 with unknownTargets LAST_KNOWN must be 1 to 86400 (R-OP-2)");
    assertThat(problems(base + "  unknownTargets: LAST_KNOWN\n  lastKnownMaxAgeSeconds: 86401\n")).singleElement()
        .asString().endsWith("must be 1 to 86400 (R-OP-2)");
    assertThat(problems(base + "  lastKnownMaxAgeSeconds: 60\n")).containsExactly("test.yaml:1:"
        + " routingPolicy.lastKnownMaxAgeSeconds: only with unknownTargets LAST_KNOWN, not COUNT_HEALTHY (R-OP-2)");
  }

  @Test
  void checksTheFallback_whenARecordSetDoesNotFailOpen_R_OP_1() {
    String base = wrr(50, 50);
    assertThat(problems(base + "  allUnhealthyBehavior: FAIL_CLOSED\n")).isEmpty();
    assertThat(problems(base + "  allUnhealthyBehavior: FALLBACK\n  fallbackRrdatas: [192.0.2.53]\n")).isEmpty();
    assertThat(problems(base + "  allUnhealthyBehavior: FALLBACK\n")).containsExactly("test.yaml:1:"
        + " routingPolicy.fallbackRrdatas: allUnhealthyBehavior FALLBACK needs the records to answer with (R-OP-1)");
    assertThat(problems(base + "  allUnhealthyBehavior: FALLBACK\n  fallbackRrdatas: [not-an-address]\n"))
        .singleElement().asString().contains("routingPolicy.fallbackRrdatas: 'not-an-address' is not valid A data");
    assertThat(problems(base + "  fallbackRrdatas: [192.0.2.53]\n")).containsExactly("test.yaml:1:"
        + " routingPolicy.fallbackRrdatas: only with allUnhealthyBehavior FALLBACK, not FAIL_OPEN (R-OP-1)");
  }

  @Test
  void rejects_whenTrickleIsOutside0To1() {
    // R-FO-3
    assertThat(problems(failover("internal", 1.5))).containsExactly(
        "test.yaml:1: routingPolicy.primaryBackup.trickleTraffic: 1.5 is outside 0..1 (R-FO-3)");
    assertThat(problems(failover("internal", 1.0))).isEmpty();
  }

  @Test
  void rejects_whenFailoverIsInAPublicZone() {
    // R-FO-6 (and R-DNSHC-5, since its targets are internal load balancers)
    assertThat(problems(PUBLIC_ZONE + failover("public", 0.1).replace("example.internal.", "example.com.")))
        .contains("test.yaml:2: routingPolicy.primaryBackup: zone 'public' is public; failover policies are allowed"
            + " only in private zones (R-FO-6)");
  }

  @Test
  void rejects_whenAnInternalLoadBalancerIsCheckedInAPublicZone() {
    // R-DNSHC-5
    assertThat(problems(PUBLIC_ZONE + wrr(10, 10).replace("zone: internal", "zone: public")
        .replace("example.internal.", "example.com."))).containsExactly(
        "test.yaml:2: routingPolicy: zone 'public' is public; health checks of internal load balancers exist only"
            + " in private zones (R-DNSHC-5)");
  }

  @Test
  void rejects_whenARecordSetHasTwoPolicyTypes() {
    // R-DNS-1
    assertThat(problems(wrr(10, 10).replace("routingPolicy:\n", """
        routingPolicy:
          geo:
            items: [{location: us-east1, rrdatas: [10.9.0.1]}]
        """))).containsExactly("test.yaml:1: routingPolicy: sets 2 policy types; exactly one of wrr, geo, primaryBackup"
        + " is allowed (a failover's backup is its own geo policy) (R-DNS-1)");
  }

  @Test
  void rejects_whenARecordSetHasRrdatasAndAPolicy() {
    // R-DNS-1
    assertThat(problems(wrr(10, 10).replace("ttl: 30\n", "ttl: 30\nrrdatas: [10.9.9.9]\n")))
        .singleElement().asString().endsWith("takes its rrdatas from the policy items (R-DNS-1)");
  }

  @Test
  void rejects_whenAPolicyIsInAForwardingZone() {
    // R-DNS-2
    assertThat(problems("""
        kind: ManagedZone
        name: fwd
        dnsName: corp.internal.
        zoneType: FORWARDING
        networks: [10.0.0.0/8]
        forwardingConfig: {targetNameServers: [{ipv4Address: 10.0.0.53}]}
        ---
        """ + wrr(10, 10).replace("zone: internal", "zone: fwd").replace("example.internal.", "corp.internal.")))
        .containsExactly("test.yaml:2: zone: 'fwd' is a FORWARDING zone; its names are answered by its target name"
            + " servers, so it holds no record sets (R-SP-1)",
            "test.yaml:2: routingPolicy: zone 'fwd' is a FORWARDING zone; routing policies are allowed"
            + " only in standard zones (R-DNS-2)");
  }

  @Test
  void rejects_whenAForwardingZoneNamesNoTargets_orAnotherZoneDoes() {
    // R-SP-1
    assertThat(problems("""
        kind: ManagedZone
        name: fwd
        dnsName: corp.internal.
        zoneType: FORWARDING
        networks: [10.0.0.0/8]
        ---
        kind: ManagedZone
        name: std
        dnsName: std.internal.
        networks: [10.0.0.0/8]
        forwardingConfig: {targetNameServers: [{ipv4Address: 10.0.0.53, port: 70000}]}
        """)).containsExactly(
        "test.yaml:1: forwardingConfig: a FORWARDING zone names the servers its queries go to (R-SP-1)",
        "test.yaml:2: forwardingConfig: only a FORWARDING zone forwards, not a STANDARD one (R-SP-1)");
  }

  private static final String RESPONSE_POLICY = """
      kind: ResponsePolicy
      responsePolicyName: corp
      networks: [10.0.0.0/8]
      ---
      """;

  @Test
  void acceptsTheExamplePolicies_overTheDemoConfiguration() throws Exception {
    // R-RP-1, R-SP-1
    assertThat(problems(java.nio.file.Files.readString(java.nio.file.Path.of("../examples/policies.yaml")))).isEmpty();
  }

  @Test
  void acceptsAResponsePolicyWithLocalDataWildcardAndBlockRules() {
    // R-RP-1
    assertThat(problems(RESPONSE_POLICY + """
        kind: ResponsePolicyRule
        responsePolicy: corp
        ruleName: override
        dnsName: api.example.internal.
        localData: {localDatas: [{name: api.example.internal., type: A, ttl: 60, rrdatas: [10.9.9.9]}]}
        ---
        kind: ResponsePolicyRule
        responsePolicy: corp
        ruleName: block-ads
        dnsName: "*.ads.example.com."
        behavior: nxdomain
        ---
        kind: ResponsePolicyRule
        responsePolicy: corp
        ruleName: pass
        dnsName: ok.ads.example.com.
        behavior: bypassResponsePolicy
        """)).isEmpty();
  }

  @Test
  void rejects_whenAResponsePolicyRuleBreaksItsRules_listingEveryProblem() {
    // R-RP-1
    assertThat(problems(RESPONSE_POLICY + """
        kind: ResponsePolicyRule
        responsePolicy: corp
        ruleName: a
        dnsName: api.example.internal.
        localData: {localDatas: [{name: other.example.internal., type: A, rrdatas: [not-an-ip]},
                                 {name: api.example.internal., type: CNAME, rrdatas: [x.example.internal.]}]}
        ---
        kind: ResponsePolicyRule
        responsePolicy: corp
        ruleName: b
        dnsName: api.example.internal.
        ---
        kind: ResponsePolicyRule
        responsePolicy: nope
        ruleName: c
        dnsName: "a.*.example.internal."
        behavior: nodata
        """)).containsExactly(
        "test.yaml:2: localData.localDatas[0].name: 'other.example.internal.' is not the rule's dnsName (R-RP-1)",
        "test.yaml:2: localData.localDatas[0].rrdatas: 'not-an-ip' is not valid A data: 'not-an-ip' is not an IPv4"
            + " address (R-RP-1)",
        "test.yaml:2: localData.localDatas: a CNAME stands alone, without other types at the same name (R-RP-1)",
        "test.yaml:2: dnsName: rule 'b' of the same policy already matches 'api.example.internal.'; one rule per name"
            + " (R-RP-1)",
        "test.yaml:3: behavior: a rule has either localData or a behavior (bypassResponsePolicy, nxdomain, nodata),"
            + " and this one has neither (R-RP-1)",
        "test.yaml:3: dnsName: rule 'a' of the same policy already matches 'api.example.internal.'; one rule per name"
            + " (R-RP-1)",
        "test.yaml:4: dnsName: 'a.*.example.internal.' is not an absolute domain name, or a wildcard '*.' followed by"
            + " one (R-RP-1)",
        "test.yaml:4: responsePolicy: no ResponsePolicy named 'nope' (R-RP-1)");
  }

  @Test
  void rejects_whenAServerPolicyBreaksItsRules_listingEveryProblem() {
    // R-SP-1
    assertThat(problems("""
        kind: ServerPolicy
        name: corp
        networks: [10.0.0.0/33]
        enableInboundForwarding: true
        loggingSampleRate: 1.5
        alternativeNameServerConfig: {targetNameServers: [{ipv4Address: 10.0.0.53, ipv6Address: "fd00::53"}]}
        """)).containsExactly(
        "test.yaml:1: networks: '10.0.0.0/33' has prefix length out of range (R-SP-1)",
        "test.yaml:1: inboundNetworks: enableInboundForwarding admits the clients of these networks; name at least one"
            + " (R-SP-1)",
        "test.yaml:1: loggingSampleRate: 1.5 is outside 0..1 (R-SP-1)",
        "test.yaml:1: alternativeNameServerConfig.targetNameServers[0]: exactly one of ipv4Address and ipv6Address"
            + " (R-SP-1)");
  }

  @Test
  void rejects_deletingAResponsePolicyThatRulesStillName() {
    // R-RP-1
    Catalog applied = new Catalog();
    for (Resource r : resources(RESPONSE_POLICY + """
        kind: ResponsePolicyRule
        responsePolicy: corp
        ruleName: a
        dnsName: api.example.internal.
        behavior: nxdomain
        """)) {
      applied.put(r);
    }
    assertThat(Validator.check(applied, List.of(new Resource(ResourceKind.RESPONSE_POLICY, "corp", null, "delete"))))
        .containsExactly("ResponsePolicyRule/corp/a (already applied): responsePolicy: no ResponsePolicy named 'corp'"
            + " (R-RP-1)");
  }

  @Test
  void rejects_whenADnssecZoneMixesCheckedAndUncheckedItems() {
    // R-DNS-3
    String zone = """
        kind: ManagedZone
        name: signed
        dnsName: signed.internal.
        dnssecEnabled: true
        networks: [10.0.0.0/8]
        ---
        """;
    String mixed = wrr(10, 10).replace("zone: internal", "zone: signed").replace("example.internal.", "signed.internal.")
        .replace("        healthCheckedTargets:\n          externalEndpoints: [10.2.0.7]\n", "");
    assertThat(problems(zone + mixed)).containsExactly("test.yaml:2: routingPolicy: the zone has DNSSEC on, so a policy"
        + " cannot mix health-checked and un-checked items (R-DNS-3)");
    String twoAddresses = wrr(10, 10).replace("zone: internal", "zone: signed")
        .replace("example.internal.", "signed.internal.").replace("[10.2.0.7]\n", "[10.2.0.7, 10.2.0.8]\n");
    assertThat(problems(zone + twoAddresses)).containsExactly("test.yaml:2: routingPolicy: the zone has DNSSEC on and"
        + " the policy uses health checks, so each item holds a single IP address (R-DNS-3)");
  }

  @Test
  void accepts_whenADnssecZoneLiftsTheOneAddressRule_R_DNSSEC_6() {
    String zone = """
        kind: ManagedZone
        name: signed
        dnsName: signed.internal.
        dnssecEnabled: true
        dnssecAnySubset: true
        networks: [10.0.0.0/8]
        ---
        """;
    String twoAddresses = wrr(10, 10).replace("zone: internal", "zone: signed")
        .replace("example.internal.", "signed.internal.").replace("[10.2.0.7]\n", "[10.2.0.7, 10.2.0.8]\n");
    String mixed = wrr(10, 10).replace("zone: internal", "zone: signed").replace("example.internal.", "signed.internal.")
        .replace("        healthCheckedTargets:\n          externalEndpoints: [10.2.0.7]\n", "");
    assertThat(problems(zone + twoAddresses)).isEmpty();
    assertThat(problems(zone + mixed)).isEmpty();
  }

  @Test
  void rejects_whenHealthChecksAreOnATxtRecordSet() {
    // docs/rules.md section 4: health checking applies to A and AAAA only
    assertThat(problems("""
        kind: ResourceRecordSet
        zone: internal
        name: txt.example.internal.
        type: TXT
        routingPolicy:
          wrr:
            items:
              - {weight: 1, rrdatas: ['"v=1"'], healthCheckedTargets: {externalEndpoints: [10.2.0.7]}}
        """)).containsExactly("test.yaml:1: routingPolicy.wrr.items[0].healthCheckedTargets: health checking applies"
        + " to A and AAAA record sets only, not TXT (docs/rules.md section 4)");
  }

  @Test
  void rejects_whenTheTypeIsUnsupportedOrTheDataInvalid() {
    assertThat(problems("""
        kind: ResourceRecordSet
        zone: internal
        name: x.example.internal.
        type: A
        rrdatas: [10.0.0.300]
        ---
        kind: ResourceRecordSet
        zone: internal
        name: y.example.internal.
        type: NAPTR
        rrdatas: [x]
        """)).satisfiesExactly(
        p -> assertThat(p).startsWith("test.yaml:1: rrdatas: '10.0.0.300' is not valid A data"),
        p -> assertThat(p).isEqualTo("test.yaml:2: type: 'NAPTR' is not one of [A, AAAA, CNAME, MX, SRV, TXT]"));
  }

  @Test
  void rejects_whenACheckedTargetIsNotAnInternalLoadBalancer() {
    // R-DNSHC-1
    assertThat(problems("""
        kind: ForwardingRule
        name: fr-plain
        region: us-east1
        ipAddress: 10.1.0.200
        loadBalancerType: none
        backendService: orders-use1
        ---
        """ + wrr(1, 1).replace("fr-orders-use1", "fr-plain")))
        .containsExactly("test.yaml:2: routingPolicy: forwarding rule 'fr-plain' has loadBalancerType none;"
            + " a health-checked target must be an internal load balancer (R-DNSHC-1)");
    assertThat(problems(wrr(1, 1).replace("fr-orders-use1", "fr-nope")))
        .containsExactly("test.yaml:1: routingPolicy: healthCheckedTargets names no ForwardingRule 'fr-nope' (R-DNSHC-1)");
  }

  @Test
  void listsEveryProblemAtOnce_whenSeveralDocumentsAreWrong() {
    List<String> problems = problems(wrr(1001, 2000) + "---\n" + SOURCE.replace("orders-use1", "nope")
        + "---\nkind: Gadget\nname: x\n");
    assertThat(problems).containsExactlyInAnyOrder(
        "test.yaml:3: kind: 'Gadget' is not one of BackendService, HealthAggregationPolicy, HealthSource,"
            + " CompositeHealthCheck, ForwardingRule, ManagedZone, ResourceRecordSet, ResponsePolicy, ResponsePolicyRule, ServerPolicy",
        "test.yaml:1: routingPolicy.wrr.items[0].weight: 1001 is outside 0..1000 (R-WRR-1)",
        "test.yaml:1: routingPolicy.wrr.items[1].weight: 2000 is outside 0..1000 (R-WRR-1)",
        "test.yaml:2: backendService: no BackendService named 'nope' (R-CH-1)");
  }

  @Test
  void namesThePath_whenAFieldIsUnknownOrOfTheWrongType() {
    assertThat(problems("""
        kind: HealthAggregationPolicy
        name: p
        healthyPercent: 75
        minHealthyThreshold: three
        """)).containsExactly(
        "test.yaml:1: healthyPercent: unknown field; HealthAggregationPolicy has [name, project, region,"
            + " healthyPercentThreshold, minHealthyThreshold]",
        "test.yaml:1: minHealthyThreshold: expected a whole number, got 'three'");
  }

  @Test
  void rejects_whenTheSameResourceIsDeclaredTwice() {
    assertThat(problems(SOURCE + "---\n" + SOURCE))
        .containsExactly("test.yaml:2: name: HealthSource/new-src is also declared at test.yaml:1");
  }

  @Test
  void namesTheLine_whenTheYamlIsBroken() {
    assertThat(problems("kind: HealthSource\nname: [unclosed\n")).singleElement().asString()
        .startsWith("test.yaml:1: syntax error at line");
  }

  @Test
  void refusesToDelete_whenARemainingResourceRefersToIt() {
    // R-CH-1: the source would name a backend service that no longer exists
    List<String> problems = Validator.check(Configs.demoCatalog(),
        List.of(new Resource(ResourceKind.BACKEND_SERVICE, "orders-use1", null, "delete")));
    assertThat(problems).contains(
        "HealthSource/orders-use1-src (already applied): backendService: no BackendService named 'orders-use1' (R-CH-1)",
        "ForwardingRule/fr-orders-use1 (already applied): backendService: no BackendService named 'orders-use1' (R-DNSHC-1)");
  }

  private static final String FORWARDING_RULE = """
      ---
      kind: ForwardingRule
      name: fr-extra
      region: us-east1
      ipAddress: 10.1.0.101
      backendService: orders-use1
      """;

  private static final String PUBLIC_ZONE = """
      kind: ManagedZone
      name: public
      dnsName: example.com.
      visibility: public
      ---
      """;

  private static String composite(String sources, String destination) {
    return """
        kind: CompositeHealthCheck
        name: extra-chc
        region: us-east1
        healthSources: %s
        healthDestination: %s
        """.formatted(sources, destination);
  }

  private static String wrr(int first, int second) {
    return """
        kind: ResourceRecordSet
        zone: internal
        name: new.example.internal.
        type: A
        ttl: 30
        routingPolicy:
          wrr:
            items:
              - weight: %d
                rrdatas: [127.0.1.100]
                healthCheckedTargets:
                  internalLoadBalancers: [{forwardingRule: fr-orders-use1}]
              - weight: %d
                rrdatas: [10.2.0.7]
                healthCheckedTargets:
                  externalEndpoints: [10.2.0.7]
        """.formatted(first, second);
  }

  private static String failover(String zone, double trickle) {
    return """
        kind: ResourceRecordSet
        zone: %s
        name: fo.example.internal.
        type: A
        routingPolicy:
          primaryBackup:
            primaryTargets: {internalLoadBalancers: [{forwardingRule: fr-orders-use1}]}
            backupGeoTargets: {items: [{location: europe-west1, rrdatas: [127.0.2.100]}]}
            trickleTraffic: %s
        """.formatted(zone, trickle);
  }
  @Test
  void rejectsAConsumerWhoseNegsRepeatARegionOrReachNoPort_R_XDS_2() {
    String consumer = """
        kind: BackendService
        name: shop-global
        backendType: PRIVATE_SERVICE_CONNECT
        healthCheck: {protocol: TCP, port: 443}
        pscBackends:
          - {negName: a, region: us-east1, forwardingRule: fr-orders-use1}
          - {negName: b, region: us-east1, forwardingRule: fr-plain}
          - {negName: a, region: europe-west1, forwardingRule: fr-nope}
        ---
        kind: ForwardingRule
        name: fr-plain
        region: us-east1
        ipAddress: 10.1.0.200
        loadBalancerType: none
        backendService: orders-use1
        """;
    assertThat(problems(consumer)).containsExactlyInAnyOrder(
        "test.yaml:1: pscBackends[b].region: NEG 'a' already serves us-east1; one NEG per region, as failover goes"
            + " from region to region (R-XDS-2)",
        "test.yaml:1: pscBackends: NEG 'a' appears twice (R-XDS-2)",
        "test.yaml:1: pscBackends[b].forwardingRule: 'fr-plain' serves all ports; a load balancer endpoint needs the"
            + " rule's port (R-XDS-2)",
        "test.yaml:1: pscBackends[a].forwardingRule: no ForwardingRule named 'fr-nope' (R-CH-8)");
    assertThat(problems(consumer.replace("region: us-east1, forwardingRule: fr-plain",
        "region: asia-east1, forwardingRule: fr-orders-euw1").replace("negName: a, region: europe-west1, forwardingRule: fr-nope",
        "negName: c, region: europe-west1, forwardingRule: fr-orders-euw1"))).isEmpty();
  }

}
