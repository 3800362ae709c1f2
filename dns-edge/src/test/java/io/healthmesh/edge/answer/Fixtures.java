package io.healthmesh.edge.answer;

import io.healthmesh.config.AllUnhealthyBehavior;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.GeoItem;
import io.healthmesh.config.GeoPolicy;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.LoadBalancerTarget;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.PrimaryBackupPolicy;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.UnknownTargetBehavior;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.config.ZoneVisibility;
import io.healthmesh.edge.routing.PlanBuilder;
import io.healthmesh.edge.routing.Regions;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.routing.SubnetRegions;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.net.Cidr;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.xbill.DNS.Rcode;

/** A small private zone with one record set of every kind the edge serves. */
public final class Fixtures {
  public static final String ZONE = "example.internal.";

  private Fixtures() {}

  public static EdgeState state() {
    EdgeState s = new EdgeState();
    s.zone("internal", ManagedZone.newBuilder().setName("internal").setDnsName(ZONE)
        .setVisibility(ZoneVisibility.PRIVATE).setNetworks(List.of("10.0.0.0/8", "127.0.0.0/8", "::1/128")).build());
    s.zone("public", ManagedZone.newBuilder().setName("public").setDnsName("example.org.")
        .setVisibility(ZoneVisibility.PUBLIC).build());
    s.forwardingRule("fr-orders", ForwardingRule.newBuilder().setName("fr-orders").setRegion("us-east1")
        .setIpAddress("10.1.0.100").setBackendService("orders").build());
    rrs(s, "static." + ZONE, "A", List.of("10.0.0.5"));
    rrs(s, "static." + ZONE, "AAAA", List.of("fd00::5"));
    rrs(s, "www." + ZONE, "CNAME", List.of("static." + ZONE));
    rrs(s, "outside." + ZONE, "CNAME", List.of("elsewhere.example.com."));
    rrs(s, ZONE, "MX", List.of("10 mail." + ZONE));
    rrs(s, "_sip._tcp." + ZONE, "SRV", List.of("10 60 5060 sip." + ZONE));
    rrs(s, "txt." + ZONE, "TXT", List.of("\"hello\""));
    rrs(s, "big." + ZONE, "TXT", IntStream.range(0, 40).mapToObj(i -> "\"" + "x".repeat(40) + i + "\"").toList());
    rrs(s, "www.example.org.", "A", List.of("192.0.2.1"));
    HealthCheckedTargets lb = HealthCheckedTargets.newBuilder()
        .setInternalLoadBalancers(List.of(LoadBalancerTarget.newBuilder().setForwardingRule("fr-orders").build())).build();
    s.recordSet("internal/api." + ZONE + "/A", ResourceRecordSet.newBuilder().setZone("internal").setName("api." + ZONE).setType("A")
        .setTtl(30).setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            WrrItem.newBuilder().setWeight(100).setRrdatas(List.of("10.1.0.100")).setHealthCheckedTargets(lb).build(),
            WrrItem.newBuilder().setWeight(0).setRrdatas(List.of("10.9.0.1")).build())).build()).build()).build(), 7);
    s.recordSet("internal/geo." + ZONE + "/A", ResourceRecordSet.newBuilder().setZone("internal").setName("geo." + ZONE).setType("A")
        .setTtl(30).setRoutingPolicy(RoutingPolicy.newBuilder().setGeo(GeoPolicy.newBuilder().setItems(List.of(
            GeoItem.newBuilder().setLocation("us-east1").setRrdatas(List.of("10.1.0.1")).build(),
            GeoItem.newBuilder().setLocation("europe-west1").setRrdatas(List.of("10.3.0.1")).build())).build()).build())
        .build(), 8);
    s.health(EntityKind.FORWARDING_RULE, "fr-orders", HealthStatus.HEALTHY);
    // R-OP-1: record sets whose only target is down, and which do not fail open.
    for (var behavior : List.of(AllUnhealthyBehavior.FAIL_CLOSED, AllUnhealthyBehavior.FALLBACK)) {
      String name = (behavior == AllUnhealthyBehavior.FAIL_CLOSED ? "closed." : "fallback.") + ZONE;
      s.recordSet("internal/" + name + "/A", ResourceRecordSet.newBuilder().setZone("internal").setName(name).setType("A")
          .setTtl(30).setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
              WrrItem.newBuilder().setWeight(1).setRrdatas(List.of("10.4.0.1")).setHealthCheckedTargets(
                  HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of("10.4.0.1")).build()).build())).build())
              .setAllUnhealthyBehavior(behavior)
              .setFallbackRrdatas(behavior == AllUnhealthyBehavior.FALLBACK ? List.of("192.0.2.53") : List.of()).build())
          .build(), 9);
    }
    s.health(EntityKind.EXTERNAL_ENDPOINT, "10.4.0.1", HealthStatus.UNHEALTHY);
    // R-OP-2: failovers whose primary is UNKNOWN, one counting it down, one as last known (down a minute ago).
    for (var behavior : List.of(UnknownTargetBehavior.COUNT_UNHEALTHY, UnknownTargetBehavior.LAST_KNOWN)) {
      boolean last = behavior == UnknownTargetBehavior.LAST_KNOWN;
      String name = (last ? "remembered." : "wary.") + ZONE;
      String primary = last ? "10.6.0.1" : "10.5.0.1";
      s.recordSet("internal/" + name + "/A", ResourceRecordSet.newBuilder().setZone("internal").setName(name).setType("A")
          .setTtl(30).setRoutingPolicy(RoutingPolicy.newBuilder().setPrimaryBackup(PrimaryBackupPolicy.newBuilder()
              .setPrimaryTargets(HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(primary)).build())
              .setBackupGeoTargets(GeoPolicy.newBuilder().setItems(List.of(GeoItem.newBuilder().setLocation("us-east1")
                  .setRrdatas(List.of(last ? "10.6.0.2" : "10.5.0.2")).build())).build()).build())
              .setUnknownTargets(behavior).setLastKnownMaxAgeSeconds(last ? 3600 : 0).build())
          .build(), 10);
    }
    s.health(EntityKind.EXTERNAL_ENDPOINT, "10.6.0.1", HealthStatus.UNKNOWN,
        new PlanBuilder.LastKnown(HealthStatus.UNHEALTHY, System.currentTimeMillis() - 60_000));
    return s;
  }

  public static void rrs(EdgeState s, String name, String type, List<String> rrdatas) {
    String zone = name.endsWith("example.org.") ? "public" : "internal";
    s.recordSet(zone + "/" + name + "/" + type, ResourceRecordSet.newBuilder().setZone(zone).setName(name).setType(type)
        .setTtl(300).setRrdatas(rrdatas).build(), 1);
  }

  public static Responder responder(AtomicReference<Snapshot> snapshot) {
    return responder(snapshot, Responder.DecisionListener.NONE);
  }

  public static Responder responder(AtomicReference<Snapshot> snapshot, Responder.DecisionListener decisions) {
    return new Responder(snapshot::get, new RoutingEngine(Regions.builtIn()), "us-east1",
        new SubnetRegions(List.of(new SubnetRegions.Entry(Cidr.parse("10.200.0.0/16"), "europe-west1"))), Rcode.SERVFAIL,
        () -> new SplittableRandom(1), decisions);
  }
}
