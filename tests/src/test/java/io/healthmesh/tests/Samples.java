package io.healthmesh.tests;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.Endpoint;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.GeoItem;
import io.healthmesh.config.GeoPolicy;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthCheckProtocol;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.HealthSource;
import io.healthmesh.config.LoadBalancerTarget;
import io.healthmesh.config.LoadBalancerType;
import io.healthmesh.config.LoadBalancingScheme;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.PrimaryBackupPolicy;
import io.healthmesh.config.PscBackend;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.config.ZoneType;
import io.healthmesh.config.ZoneVisibility;
import io.healthmesh.events.AddressHealth;
import io.healthmesh.events.ConfigInForce;
import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.DeadLetter;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.DecisionReason;
import io.healthmesh.events.DnsDecision;
import io.healthmesh.events.EdgePartition;
import io.healthmesh.events.EdgeStatus;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.NegState;
import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.events.RoutingPolicyType;
import io.healthmesh.events.TransitionCause;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/** One realistic key and value for every topic, with every optional part filled in. */
final class Samples {
  static final Instant T = Instant.parse("2026-11-30T12:00:00.123Z");

  private Samples() {}

  record Sample(Object key, SpecificRecord value) {}

  static Map<Topic<?, ?>, Sample> all() {
    return Map.ofEntries(
        Map.entry(Topics.BACKEND_SERVICES, new Sample("orders-use1", backendService())),
        Map.entry(Topics.HEALTH_AGGREGATION_POLICIES, new Sample("strict", policy())),
        Map.entry(Topics.HEALTH_SOURCES, new Sample("orders-src", HealthSource.newBuilder()
            .setName("orders-src").setRegion("us-east1").setBackendService("orders-use1")
            .setHealthAggregationPolicy("strict").build())),
        Map.entry(Topics.COMPOSITE_HEALTH_CHECKS, new Sample("orders-chc", CompositeHealthCheck.newBuilder()
            .setName("orders-chc").setRegion("us-east1").setHealthSources(List.of("orders-src", "payments-src"))
            .setHealthDestination("fr-orders-use1").setDryRun(true).build())),
        Map.entry(Topics.FORWARDING_RULES, new Sample("fr-orders-use1", ForwardingRule.newBuilder()
            .setName("fr-orders-use1").setRegion("us-east1").setIpAddress("10.1.0.100").setPort(443)
            .setLoadBalancerType(LoadBalancerType.regionalL4ilb).setBackendService("orders-use1")
            .setPublishedService(true).build())),
        Map.entry(Topics.MANAGED_ZONES, new Sample("internal", ManagedZone.newBuilder()
            .setName("internal").setDnsName("example.internal.").setDescription("private zone")
            .setVisibility(ZoneVisibility.PRIVATE).setZoneType(ZoneType.STANDARD)
            .setNetworks(List.of("10.0.0.0/8", "127.0.0.0/8")).setDnssecEnabled(true).build())),
        Map.entry(Topics.RESOURCE_RECORD_SETS, new Sample("internal/api.example.internal./A", recordSet())),
        Map.entry(Topics.RESPONSE_POLICIES, new Sample("corp", io.healthmesh.config.ResponsePolicy.newBuilder()
            .setResponsePolicyName("corp").setNetworks(List.of("10.0.0.0/8")).build())),
        Map.entry(Topics.RESPONSE_POLICY_RULES, new Sample("corp/pinned", io.healthmesh.config.ResponsePolicyRule
            .newBuilder().setResponsePolicy("corp").setRuleName("pinned").setDnsName("api.example.internal.")
            .setLocalData(io.healthmesh.config.ResponsePolicyRuleLocalData.newBuilder().setLocalDatas(List.of(
                io.healthmesh.config.LocalRecordSet.newBuilder().setName("api.example.internal.").setType("A")
                    .setRrdatas(List.of("10.9.9.9")).build())).build()).build())),
        Map.entry(Topics.SERVER_POLICIES, new Sample("corp", io.healthmesh.config.ServerPolicy.newBuilder()
            .setName("corp").setNetworks(List.of("10.0.0.0/8")).setEnableLogging(true)
            .setAlternativeNameServerConfig(io.healthmesh.config.AlternativeNameServerConfig.newBuilder()
                .setTargetNameServers(List.of(io.healthmesh.config.TargetNameServer.newBuilder()
                    .setIpv4Address("10.0.0.53").build())).build()).build())),
        Map.entry(Topics.DNS_QUERY_LOG, new Sample("10.1.2.3", io.healthmesh.events.DnsQueryLog.newBuilder()
            .setTime(java.time.Instant.parse("2026-12-02T00:00:00Z")).setEdge("edge-us-east1").setServerPolicy("corp")
            .setClient("10.1.2.3").setQueryName("www.example.com.").setQueryType("A").setRcode("NOERROR")
            .setAnswer(List.of("www.example.com. A 192.0.2.80")).setLatencyMicros(850)
            .setSource("forwarded:10.0.0.53:53").build())),
        Map.entry(Topics.CONFIG_DLQ, new Sample("strict", deadLetter("config.health-aggregation-policy"))),
        Map.entry(Topics.PROBE_RESULTS, new Sample("orders-use1", probe())),
        Map.entry(Topics.PROBE_RESULTS_DLQ, new Sample("orders-use1", deadLetter("probe-results"))),
        Map.entry(Topics.HEALTH_STATE, new Sample(entity(), HealthState.newBuilder()
            .setStatus(HealthStatus.UNHEALTHY).setSince(T).setRegion("us-east1").setHealthyCount(2)
            .setUnhealthyCount(2).setUnknownCount(0).setVersion(7).setSourceOffset(1234L).build())),
        Map.entry(Topics.HEALTH_TRANSITIONS, new Sample(entity(), transition())),
        Map.entry(Topics.CONSUMER_FAILOVER, new Sample("consumer-global", ConsumerFailover.newBuilder()
            .setEventTime(T).setActiveRegions(List.of("europe-west1"))
            .setNegs(List.of(
                NegState.newBuilder().setName("psc-use1").setRegion("us-east1").setStatus(HealthStatus.UNHEALTHY).build(),
                NegState.newBuilder().setName("psc-euw1").setRegion("europe-west1").setStatus(HealthStatus.HEALTHY).build()))
            .build())),
        Map.entry(Topics.DNS_DECISIONS, new Sample("api.example.internal.", DnsDecision.newBuilder()
            .setTime(T).setEdge("edge-1").setEdgeRegion("us-east1").setQueryName("api.example.internal.")
            .setQueryType("A").setClientSubnet("10.9.0.0/24").setSourceRegion("us-east1")
            .setPolicy(RoutingPolicyType.WRR).setPolicyVersion(17).setBucket("wrr[1]")
            .setReason(DecisionReason.WEIGHT_DRAW)
            .setAddresses(List.of(AddressHealth.newBuilder().setAddress("10.2.0.100")
                .setStatus(HealthStatus.HEALTHY).setReturned(true).build()))
            .build())),
        Map.entry(Topics.EDGE_STATUS, new Sample("edge-us-east1", EdgeStatus.newBuilder().setEdge("edge-us-east1")
            .setRegion("us-east1").setReady(true).setSnapshotVersion(42).setBuiltAt(T).setReportedAt(T.plusSeconds(1))
            .setLagRecords(3).setStalenessMillis(250)
            .setPartitions(List.of(EdgePartition.newBuilder().setTopic("health-state").setPartition(0).setServed(99)
                .setEnd(103).build()))
            .build())),
        Map.entry(Topics.XDS_STATUS, new Sample("xds-1", io.healthmesh.events.XdsStatus.newBuilder().setServer("xds-1")
            .setReady(true).setReportedAt(T).setConsumers(1).setLagRecords(0)
            .setClients(List.of(io.healthmesh.events.XdsClientStatus.newBuilder().setStream(1).setNode("checkout-7f9c")
                .setUserAgent("gRPC Java 1.85.1").setDelta(false).setOpenedAt(T)
                .setTypes(List.of(io.healthmesh.events.XdsTypeStatus.newBuilder().setType("ClusterLoadAssignment")
                    .setSentVersion("9f1c2a7e5b3d4c61").setSentResources(1).setSentAt(T)
                    .setAckedVersion("9f1c2a7e5b3d4c61").setAwaitingAck(false).setNacks(0).build()))
                .build()))
            .build())),
        Map.entry(Topics.CONFIG_IN_FORCE, new Sample("config.resource-record-set|internal/db.example.internal./A",
            ConfigInForce.newBuilder().setTopic("config.resource-record-set").setKey("internal/db.example.internal./A")
                .setInForceOffset(7).setInForce(java.nio.ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 1, 2}))
                .setRejectedOffset(9).setProblems(List.of("routingPolicy.wrr.items[0].weight: 2000 is outside 0..1000 (R-WRR-1)"))
                .setRejectedAt(T).build())));
  }

  static EntityKey entity() {
    return EntityKey.newBuilder().setKind(EntityKind.BACKEND_SERVICE).setName("orders-use1").build();
  }

  static ProbeResult probe() {
    return ProbeResult.newBuilder().setType(ProbeRecordType.RESULT).setBackendService("orders-use1")
        .setEndpointId("vm-1").setSuccess(false).setEventTime(T).setProber("prober-use1-a")
        .setLatencyMicros(5_000_000L).setDetail("connect timed out").build();
  }

  static BackendService backendService() {
    return BackendService.newBuilder()
        .setName("orders-use1").setRegion("us-east1")
        .setLoadBalancingScheme(LoadBalancingScheme.INTERNAL_MANAGED)
        .setBackendType(BackendType.GCE_VM_IP_PORT)
        .setHealthCheck(HealthCheckSpec.newBuilder().setProtocol(HealthCheckProtocol.HTTP).setPort(8080)
            .setRequestPath("/healthz").setCheckIntervalSec(5).setHealthyThreshold(3).build())
        .setEndpoints(List.of(
            Endpoint.newBuilder().setId("vm-1").setIpAddress("10.1.0.11").setPort(8080).build(),
            Endpoint.newBuilder().setId("vm-2").setIpAddress("10.1.0.12").build()))
        .setPscBackends(List.of(PscBackend.newBuilder().setNegName("psc-use1").setRegion("us-east1")
            .setForwardingRule("fr-orders-use1").build()))
        .build();
  }

  static HealthAggregationPolicy policy() {
    return HealthAggregationPolicy.newBuilder().setName("strict").setRegion("us-east1")
        .setHealthyPercentThreshold(75).setMinHealthyThreshold(3).build();
  }

  static ResourceRecordSet recordSet() {
    HealthCheckedTargets lb = HealthCheckedTargets.newBuilder()
        .setInternalLoadBalancers(List.of(LoadBalancerTarget.newBuilder().setForwardingRule("fr-orders-use1").build()))
        .setExternalEndpoints(List.of("10.2.0.100")).build();
    GeoPolicy geo = GeoPolicy.newBuilder().setEnableFencing(true).setItems(List.of(
        GeoItem.newBuilder().setLocation("us-east1").setRrdatas(List.of("10.1.0.100")).setHealthCheckedTargets(lb).build(),
        GeoItem.newBuilder().setLocation("europe-west1").setRrdatas(List.of("10.3.0.100")).build())).build();
    RoutingPolicy policy = RoutingPolicy.newBuilder()
        .setWrr(WrrPolicy.newBuilder().setItems(List.of(
            WrrItem.newBuilder().setWeight(25).setRrdatas(List.of("10.1.0.100")).setHealthCheckedTargets(lb).build(),
            WrrItem.newBuilder().setWeight(75).setRrdatas(List.of("10.2.0.100")).build())).build())
        .setGeo(geo)
        .setPrimaryBackup(PrimaryBackupPolicy.newBuilder().setPrimaryTargets(lb).setBackupGeoTargets(geo)
            .setTrickleTraffic(0.1).build())
        .setHealthCheck(HealthCheckSpec.newBuilder().setCheckIntervalSec(30).build())
        .build();
    return ResourceRecordSet.newBuilder().setZone("internal").setName("api.example.internal.").setType("A")
        .setTtl(30).setRrdatas(List.of()).setRoutingPolicy(policy).build();
  }

  static HealthTransition transition() {
    return HealthTransition.newBuilder().setEntity(entity()).setOldStatus(HealthStatus.HEALTHY)
        .setNewStatus(HealthStatus.UNHEALTHY).setEventTime(T).setVersion(7)
        .setCause(TransitionCause.newBuilder().setReason(TransitionReason.MEMBER_STATE).setHealthyCount(2)
            .setUnhealthyCount(2).setUnknownCount(0).setHealthyPercentThreshold(75).setMinHealthyThreshold(3)
            .setPolicyName("strict").setPolicyVersion(3L).setTriggerTopic("probe-results").setTriggerPartition(1)
            .setTriggerOffset(1234L).setDetail("2 of 4 healthy: below 75% and below 3").build())
        .build();
  }

  static DeadLetter deadLetter(String topic) {
    return DeadLetter.newBuilder().setReason(DeadLetterReason.MALFORMED).setMessage("bad magic byte")
        .setSourceTopic(topic).setSourcePartition(0).setSourceOffset(99).setSourceTimestamp(T)
        .setKey(ByteBuffer.wrap("orders-use1".getBytes(StandardCharsets.UTF_8)))
        .setValue(ByteBuffer.wrap(new byte[] {1, 2, 3})).build();
  }
}
