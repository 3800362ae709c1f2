package io.healthmesh.cli;

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
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The demo's configuration: one service per region behind an internal application LB, each
 * judged by a composite check, and a private zone with a WRR, a failover-with-trickle and a
 * geolocation record set over them.
 */
final class SampleConfig {
  static final String ZONE = "example.internal.";
  static final List<String> REGIONS = List.of("us-east1", "europe-west1");
  static final Map<String, String> LB_ADDRESS = Map.of("us-east1", "10.1.0.100", "europe-west1", "10.2.0.100");

  private SampleConfig() {}

  static String service(String region) {
    return "orders-" + (region.equals("us-east1") ? "use1" : "euw1");
  }

  static List<BackendService> services() {
    return REGIONS.stream().map(region -> BackendService.newBuilder().setName(service(region)).setRegion(region)
        .setLoadBalancingScheme(LoadBalancingScheme.INTERNAL_MANAGED).setBackendType(BackendType.GCE_VM_IP_PORT)
        .setHealthCheck(HealthCheckSpec.newBuilder().setProtocol(HealthCheckProtocol.HTTP).setPort(8080)
            .setCheckIntervalSec(1).setHealthyThreshold(2).setUnhealthyThreshold(2).setStaleAfterIntervals(5).build())
        .setEndpoints(List.of(1, 2, 3).stream().map(i -> Endpoint.newBuilder().setId("vm-" + i)
            .setIpAddress(LB_ADDRESS.get(region).replace(".100", "." + (10 + i))).setPort(8080).build()).toList())
        .build()).toList();
  }

  static void publish(String bootstrap, SchemaRegistryClient registry) throws Exception {
    for (BackendService s : services()) {
      send(bootstrap, registry, Topics.BACKEND_SERVICES, s.getName(), s);
    }
    for (String region : REGIONS) {
      String svc = service(region);
      send(bootstrap, registry, Topics.HEALTH_AGGREGATION_POLICIES, "majority-" + region, HealthAggregationPolicy
          .newBuilder().setName("majority-" + region).setRegion(region).setHealthyPercentThreshold(60)
          .setMinHealthyThreshold(2).build());
      send(bootstrap, registry, Topics.HEALTH_SOURCES, svc + "-src", HealthSource.newBuilder().setName(svc + "-src")
          .setRegion(region).setBackendService(svc).setHealthAggregationPolicy("majority-" + region).build());
      send(bootstrap, registry, Topics.FORWARDING_RULES, "fr-" + svc, ForwardingRule.newBuilder().setName("fr-" + svc)
          .setRegion(region).setIpAddress(LB_ADDRESS.get(region)).setBackendService(svc)
          .setLoadBalancerType(LoadBalancerType.regionalL7ilb).build());
      send(bootstrap, registry, Topics.COMPOSITE_HEALTH_CHECKS, svc + "-chc", CompositeHealthCheck.newBuilder()
          .setName(svc + "-chc").setRegion(region).setHealthSources(List.of(svc + "-src"))
          .setHealthDestination("fr-" + svc).build());
    }
    send(bootstrap, registry, Topics.MANAGED_ZONES, "internal", ManagedZone.newBuilder().setName("internal")
        .setDnsName(ZONE).setNetworks(List.of("127.0.0.0/8", "::1/128", "10.0.0.0/8")).build());
    for (ResourceRecordSet rrs : recordSets()) {
      send(bootstrap, registry, Topics.RESOURCE_RECORD_SETS, rrs.getZone() + "/" + rrs.getName() + "/" + rrs.getType(), rrs);
    }
  }

  static List<ResourceRecordSet> recordSets() {
    HealthCheckedTargets use1 = lb("us-east1");
    HealthCheckedTargets euw1 = lb("europe-west1");
    GeoPolicy geo = GeoPolicy.newBuilder().setItems(List.of(
        GeoItem.newBuilder().setLocation("us-east1").setRrdatas(List.of(LB_ADDRESS.get("us-east1"))).setHealthCheckedTargets(use1).build(),
        GeoItem.newBuilder().setLocation("europe-west1").setRrdatas(List.of(LB_ADDRESS.get("europe-west1")))
            .setHealthCheckedTargets(euw1).build())).build();
    return List.of(
        rrs("api." + ZONE, RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            WrrItem.newBuilder().setWeight(25).setRrdatas(List.of(LB_ADDRESS.get("us-east1"))).setHealthCheckedTargets(use1).build(),
            WrrItem.newBuilder().setWeight(75).setRrdatas(List.of(LB_ADDRESS.get("europe-west1"))).setHealthCheckedTargets(euw1)
                .build())).build()).build()),
        rrs("db." + ZONE, RoutingPolicy.newBuilder().setPrimaryBackup(PrimaryBackupPolicy.newBuilder()
            .setPrimaryTargets(use1).setTrickleTraffic(0.1).setBackupGeoTargets(GeoPolicy.newBuilder().setItems(List.of(
                GeoItem.newBuilder().setLocation("europe-west1").setRrdatas(List.of(LB_ADDRESS.get("europe-west1")))
                    .setHealthCheckedTargets(euw1).build())).build()).build()).build()),
        rrs("www." + ZONE, RoutingPolicy.newBuilder().setGeo(geo).build()));
  }

  private static HealthCheckedTargets lb(String region) {
    return HealthCheckedTargets.newBuilder().setInternalLoadBalancers(List.of(
        LoadBalancerTarget.newBuilder().setForwardingRule("fr-" + service(region)).build())).build();
  }

  private static ResourceRecordSet rrs(String name, RoutingPolicy policy) {
    return ResourceRecordSet.newBuilder().setZone("internal").setName(name).setType("A").setTtl(5)
        .setRoutingPolicy(policy).build();
  }

  private static <V extends SpecificRecord> void send(String bootstrap, SchemaRegistryClient registry,
      Topic<String, V> topic, String key, V value) throws Exception {
    try (KafkaProducer<String, V> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrap), topic.keySerde(registry).serializer(), topic.valueSerde(registry).serializer())) {
      producer.send(new ProducerRecord<>(topic.name(), key, value)).get();
    }
  }
}
