package io.healthmesh.edge.answer;


import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.GeoItem;
import io.healthmesh.config.GeoPolicy;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.LoadBalancerTarget;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.PrimaryBackupPolicy;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.config.ZoneVisibility;
import io.healthmesh.edge.rules.DnsConfigRules;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.edge.state.RecordSetEntry;
import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.edge.state.Zone;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Snapshots built one change at a time answer exactly like a snapshot built at once from the
 * same final state: every name of the test's universe, every type, through the full path and
 * the fast path, for a client inside and one outside the private zones' networks.
 */
class IncrementalSnapshotTest {
  private static final List<String> ADDRESSES = List.of("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5");
  private static final List<String> RULES = List.of("fr-1", "fr-2", "fr-3");
  private static final List<String> ORIGINS = List.of("example.internal.", "sub.example.internal.", "example.org.");
  private static final List<String> LABELS = List.of("", "www.", "api.", "API.", "x.y.", "deep.x.y.", "sub.", "w.sub.",
      "a.b.c.");
  private static final List<String> TYPES = List.of("A", "AAAA", "CNAME", "TXT", "MX");
  private static final int[] QUERY_TYPES = {Type.A, Type.AAAA, Type.CNAME, Type.TXT, Type.MX, Type.SOA, Type.ANY, Type.NS};
  private static final HealthStatus[] STATUSES = {HealthStatus.HEALTHY, HealthStatus.UNHEALTHY, HealthStatus.UNKNOWN, null};

  /**
   * The last accepted value of every key: what a fresh edge fed these values ends with. A record
   * set is accepted when it keeps its own rules and, if its zone is known, that zone's (R-FO-6:
   * this test's public zone z2 takes no failover); a zone here never changes its visibility.
   */
  private final Map<String, ManagedZone> zones = new LinkedHashMap<>();
  private final Map<String, ResourceRecordSet> recordSets = new LinkedHashMap<>();
  private final Map<String, Long> offsets = new LinkedHashMap<>();
  private final Map<String, ForwardingRule> rules = new LinkedHashMap<>();
  private final Map<String, HealthStatus> health = new LinkedHashMap<>();

  @Test
  void answersLikeAFullRebuild_whenChangesArriveOneByOneInAnyOrder() throws Exception {
    for (long seed = 1; seed <= 30; seed++) {
      clear();
      Random random = new Random(seed);
      EdgeState incremental = new EdgeState();
      for (int step = 0; step < 400; step++) {
        change(incremental, random, step);
        if (random.nextInt(10) == 0) {
          Snapshot served = incremental.snapshot(true);
          if (random.nextInt(4) == 0) {
            assertSameAnswers(served, fullRebuild(), "seed " + seed + " step " + step);
          }
        }
      }
      assertSameAnswers(incremental.snapshot(true), fullRebuild(), "seed " + seed + " at the end");
    }
  }

  @Test
  void sharesWhatDidNotChange_andMovesTheSerialOfTheChangedZoneOnly() throws Exception {
    EdgeState state = Fixtures.state();
    Snapshot before = state.snapshot(true);
    state.health(EntityKind.FORWARDING_RULE, "fr-orders", HealthStatus.UNHEALTHY);
    Snapshot after = state.snapshot(true);
    Zone internalBefore = zone(before, "internal");
    Zone internalAfter = zone(after, "internal");
    assertThat(zone(after, "public")).isSameAs(zone(before, "public"));
    assertThat(internalAfter.soa().getSerial()).isEqualTo(after.version()).isGreaterThan(internalBefore.soa().getSerial());
    Name api = Name.fromConstantString("api." + Fixtures.ZONE);
    Name geo = Name.fromConstantString("geo." + Fixtures.ZONE);
    assertThat(internalAfter.types(geo)).isSameAs(internalBefore.types(geo));
    RecordSetEntry replanned = internalAfter.types(api).get(Type.A);
    RecordSetEntry old = internalBefore.types(api).get(Type.A);
    assertThat(replanned.plan()).isNotEqualTo(old.plan());
    assertThat(replanned.records()).as("rrdatas parsed once per record-set version").isSameAs(old.records());
    assertThat(state.health(EntityKind.FORWARDING_RULE, "fr-orders", HealthStatus.UNHEALTHY)).isFalse();
    assertThat(state.changed()).isFalse();
  }

  private static Zone zone(Snapshot snapshot, String name) {
    return snapshot.zones().stream().filter(z -> z.config().getName().equals(name)).findFirst().orElseThrow();
  }

  private void clear() {
    zones.clear();
    recordSets.clear();
    offsets.clear();
    rules.clear();
    health.clear();
  }

  private void change(EdgeState state, Random random, int step) {
    int what = random.nextInt(100);
    if (what < 8) {
      int z = random.nextInt(ORIGINS.size());
      String name = "z" + z;
      ManagedZone zone = random.nextInt(4) == 0 ? null : zone(name, z, random);
      state.zone(name, zone);
      if (zone == null) {
        zones.remove(name);
      } else if (DnsConfigRules.zone(name, zone).isEmpty()) {
        zones.put(name, zone);
      }
    } else if (what < 55) {
      int z = random.nextInt(ORIGINS.size());
      String owner = LABELS.get(random.nextInt(LABELS.size())) + ORIGINS.get(random.nextInt(ORIGINS.size()));
      String type = TYPES.get(random.nextInt(TYPES.size()));
      String key = "z" + z + "/" + owner + "/" + type;
      ResourceRecordSet rrs = random.nextInt(5) == 0 ? null : recordSet("z" + z, owner, type, random);
      state.recordSet(key, rrs, step);
      if (rrs == null) {
        recordSets.remove(key);
        offsets.remove(key);
      } else if (DnsConfigRules.recordSet(key, rrs, null).isEmpty()
          && (!zones.containsKey("z" + z) || DnsConfigRules.policyInZone(key, rrs, zones.get("z" + z)).isEmpty())) {
        recordSets.put(key, rrs);
        offsets.put(key, (long) step);
      }
    } else if (what < 65) {
      String name = RULES.get(random.nextInt(RULES.size()));
      ForwardingRule rule = random.nextInt(4) == 0 ? null : ForwardingRule.newBuilder().setName(name)
          .setRegion("us-east1").setIpAddress(pick(ADDRESSES, random)).setBackendService("svc").build();
      state.forwardingRule(name, rule);
      put(rules, name, rule);
    } else {
      boolean lb = random.nextInt(3) == 0;
      EntityKind kind = lb ? EntityKind.FORWARDING_RULE : EntityKind.EXTERNAL_ENDPOINT;
      String name = lb ? pick(RULES, random) : pick(ADDRESSES, random);
      HealthStatus status = STATUSES[random.nextInt(STATUSES.length)];
      state.health(kind, name, status);
      put(health, kind + "|" + name, status);
    }
  }

  private static <V> void put(Map<String, V> map, String key, V value) {
    if (value == null) {
      map.remove(key);
    } else {
      map.put(key, value);
    }
  }

  /** A new edge fed the final state once. */
  private Snapshot fullRebuild() {
    EdgeState fresh = new EdgeState();
    zones.forEach(fresh::zone);
    recordSets.forEach((key, rrs) -> fresh.recordSet(key, rrs, offsets.get(key)));
    rules.forEach(fresh::forwardingRule);
    health.forEach((key, status) -> {
      String[] parts = key.split("\\|");
      fresh.health(EntityKind.valueOf(parts[0]), parts[1], status);
    });
    return fresh.snapshot(true);
  }

  private static ManagedZone zone(String name, int z, Random random) {
    boolean isPrivate = z < 2;
    List<String> networks = isPrivate ? (random.nextBoolean() ? List.of("127.0.0.0/8") : List.of("192.0.2.0/24"))
        : List.of();
    // Now and then a zone moves to another origin, or gets one that clashes with another zone.
    String origin = random.nextInt(6) == 0 ? pick(ORIGINS, random) : ORIGINS.get(z);
    return ManagedZone.newBuilder().setName(name).setDnsName(origin)
        .setVisibility(isPrivate ? ZoneVisibility.PRIVATE : ZoneVisibility.PUBLIC).setNetworks(networks)
        .setSoaMinimumTtl(random.nextInt(3) * 60).build();
  }

  private static ResourceRecordSet recordSet(String zone, String owner, String type, Random random) {
    ResourceRecordSet.Builder rrs = ResourceRecordSet.newBuilder().setZone(zone).setName(owner).setType(type)
        .setTtl(30 + random.nextInt(3));
    boolean address = type.equals("A") || type.equals("AAAA");
    if (!address || random.nextInt(4) == 0) {
      return rrs.setRrdatas(List.of(rrdata(type, random))).build();
    }
    RoutingPolicy.Builder policy = RoutingPolicy.newBuilder();
    switch (random.nextInt(3)) {
      case 0 -> policy.setWrr(WrrPolicy.newBuilder().setItems(List.of(
          WrrItem.newBuilder().setWeight(random.nextInt(3) * 50).setRrdatas(addresses(type, random))
              .setHealthCheckedTargets(checked(type, random)).build(),
          WrrItem.newBuilder().setWeight(random.nextInt(2) * 100).setRrdatas(addresses(type, random))
              .setHealthCheckedTargets(checked(type, random)).build())).build());
      case 1 -> policy.setGeo(geo(type, random)).build();
      default -> policy.setPrimaryBackup(PrimaryBackupPolicy.newBuilder()
          .setPrimaryTargets(HealthCheckedTargets.newBuilder().setInternalLoadBalancers(List.of(
              LoadBalancerTarget.newBuilder().setForwardingRule(pick(RULES, random)).build())).build())
          .setBackupGeoTargets(geo(type, random)).setTrickleTraffic(random.nextInt(3) * 0.25).build());
    }
    return rrs.setRoutingPolicy(policy.build()).build();
  }

  private static GeoPolicy geo(String type, Random random) {
    return GeoPolicy.newBuilder().setEnableFencing(random.nextBoolean()).setItems(List.of(
        GeoItem.newBuilder().setLocation("us-east1").setRrdatas(addresses(type, random))
            .setHealthCheckedTargets(checked(type, random)).build(),
        GeoItem.newBuilder().setLocation("europe-west1").setRrdatas(addresses(type, random)).build())).build();
  }

  private static HealthCheckedTargets checked(String type, Random random) {
    if (!type.equals("A") || random.nextInt(4) == 0) {
      return null;
    }
    return HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(pick(ADDRESSES, random))).build();
  }

  private static List<String> addresses(String type, Random random) {
    if (type.equals("AAAA")) {
      return List.of("fd00::" + (1 + random.nextInt(4)));
    }
    List<String> out = new ArrayList<>(List.of(pick(ADDRESSES, random)));
    String second = pick(ADDRESSES, random);
    if (!out.contains(second)) {
      out.add(second);
    }
    return out;
  }

  private static String rrdata(String type, Random random) {
    return switch (type) {
      case "A" -> pick(ADDRESSES, random);
      case "AAAA" -> "fd00::" + (1 + random.nextInt(4));
      case "CNAME" -> pick(LABELS, random) + pick(ORIGINS, random);
      case "TXT" -> "\"t" + random.nextInt(3) + "\"";
      default -> "10 mail." + pick(ORIGINS, random);
    };
  }

  private static <T> T pick(List<T> from, Random random) {
    return from.get(random.nextInt(from.size()));
  }

  private static void assertSameAnswers(Snapshot incremental, Snapshot full, String when) throws Exception {
    assertThat(incremental.zones().stream().map(z -> z.config().getName()).toList()).as(when)
        .isEqualTo(full.zones().stream().map(z -> z.config().getName()).toList());
    assertThat(incremental.recordSets()).as(when).isEqualTo(full.recordSets());
    assertThat(incremental.wire().size()).as(when).isEqualTo(full.wire().size());
    AtomicReference<Snapshot> a = new AtomicReference<>(incremental);
    AtomicReference<Snapshot> b = new AtomicReference<>(full);
    Responder left = Fixtures.responder(a);
    Responder right = Fixtures.responder(b);
    List<InetAddress> clients = List.of(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("192.0.2.7"));
    for (String origin : ORIGINS) {
      for (String label : LABELS) {
        Name name = Name.fromString(label + origin);
        for (int qtype : QUERY_TYPES) {
          byte[] query = Message.newQuery(Record.newRecord(name, qtype, DClass.IN)).toWire();
          for (InetAddress client : clients) {
            String what = when + ": " + name + " " + Type.string(qtype) + " from " + client.getHostAddress();
            assertThat(normalized(left.reply(query, client, false))).as(what)
                .isEqualTo(normalized(right.reply(query, client, false)));
            assertThat(normalized(left.fullReply(query, client, true))).as(what)
                .isEqualTo(normalized(right.fullReply(query, client, true)));
          }
        }
        for (int i = 0; i < incremental.zones().size(); i++) {
          Map<Integer, RecordSetEntry> x = incremental.zones().get(i).types(name);
          Map<Integer, RecordSetEntry> y = full.zones().get(i).types(name);
          assertThat(x == null).as(when + ": " + name).isEqualTo(y == null);
          if (x != null) {
            assertThat(x.keySet()).as(when + ": " + name).isEqualTo(y.keySet());
            x.forEach((type, entry) -> {
              assertThat(entry.plan()).as(when + ": plan of " + name).isEqualTo(y.get(type).plan());
              assertThat(entry.version()).as(when + ": version of " + name).isEqualTo(y.get(type).version());
            });
          }
        }
      }
    }
  }

  /** The response as text, with SOA serials left out: they count snapshots, which differ by design. */
  private static String normalized(byte[] response) throws Exception {
    if (response == null) {
      return "dropped";
    }
    Message m = new Message(response);
    StringBuilder out = new StringBuilder(m.getHeader().toString().replaceAll("id: \\d+", ""));
    for (int section : new int[] {Section.ANSWER, Section.AUTHORITY, Section.ADDITIONAL}) {
      for (Record r : m.getSection(section)) {
        out.append(section).append(' ');
        if (r instanceof SOARecord soa) {
          out.append(soa.getName()).append(" SOA ").append(soa.getHost()).append(soa.getAdmin()).append(soa.getMinimum());
        } else {
          out.append(r);
        }
        out.append('\n');
      }
    }
    return out.toString();
  }
}
