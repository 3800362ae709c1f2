package io.healthmesh.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.edge.answer.Fixtures;
import io.healthmesh.edge.answer.PolicyListener;
import io.healthmesh.edge.answer.Responder;
import io.healthmesh.edge.dnssec.BindKeyFiles;
import io.healthmesh.edge.dnssec.KeyTiming;
import io.healthmesh.edge.dnssec.OnlineSigning;
import io.healthmesh.edge.dnssec.SignedZoneFixture;
import io.healthmesh.edge.dnssec.ZoneKey;
import io.healthmesh.edge.routing.Regions;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.routing.SubnetRegions;
import io.healthmesh.edge.servers.Dig;
import io.healthmesh.edge.servers.NameServerProcess;
import io.healthmesh.edge.servers.Unbound;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;
import org.xbill.DNS.dnssec.ValidatingResolver;

/**
 * The edge's signed answers through real validators (R-DNSSEC-1..5): unbound with the zone's
 * trust anchor in front of the edge, delv, and dnsjava's ValidatingResolver. Only what a validator
 * accepts counts: each answer must come back authenticated (AD), and a tampered or expired
 * signature must not.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DnssecValidationIT {
  private static final String ZONE = Fixtures.ZONE;

  @TempDir
  Path dir;

  private final EdgeState state = Fixtures.state();
  private final AtomicReference<Snapshot> snapshot = new AtomicReference<>();
  private final List<AutoCloseable> open = new ArrayList<>();
  private Path keys;
  private ZoneKey ksk;

  @BeforeEach
  void signTheZone() throws Exception {
    state.zone("internal", SignedZoneFixture.signed(SignedZoneFixture.privateZone("internal", ZONE)));
    snapshot.set(state.snapshot(true));
    keys = Files.createDirectories(dir.resolve("keys"));
    ksk = SignedZoneFixture.keys(keys, ZONE).get(0);
  }

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private EdgeServer edge(Path keyDir, Clock clock) throws Exception {
    OnlineSigning signing = OnlineSigning.start(io.healthmesh.edge.dnssec.SigningSettings.NONE.withKeys(keyDir)
        .withSweep(Duration.ofMillis(100)), clock, new SimpleMeterRegistry());
    open.add(signing);
    Responder responder = new Responder(snapshot::get, new RoutingEngine(Regions.builtIn()), "us-east1",
        SubnetRegions.NONE, Rcode.SERVFAIL, ThreadLocalRandom::current, Responder.DecisionListener.NONE, null,
        PolicyListener.NONE, signing);
    EdgeServer server = EdgeServer.start(new EdgeServer.Listen("127.0.0.1", 0, 1, false,
        new TcpLimits(64, 16, Duration.ofSeconds(10), Duration.ofSeconds(2))), responder, new SimpleMeterRegistry());
    open.add(server);
    return server;
  }

  private String anchor() {
    return "trust-anchor: \"" + ksk.ds(3600).toString().replace("\t", " ") + "\"";
  }

  private NameServerProcess unbound(EdgeServer edge, String name, int maxTtl) throws Exception {
    NameServerProcess unbound = Unbound.validating(dir.resolve(name), anchor(), maxTtl, """
        stub-zone:
          name: "%s"
          stub-addr: 127.0.0.1@%d
        """.formatted(ZONE, edge.port()));
    open.add(unbound);
    return unbound;
  }

  /** dig through the resolver: the status, and whether the answer came back authenticated. */
  private static String validated(NameServerProcess resolver, String name, String type) throws Exception {
    String out = Dig.ask(resolver.port(), name, type, "+dnssec");
    boolean ad = out.lines().anyMatch(l -> l.contains(";; flags:") && l.matches(".*flags:[^;]* ad[ ;].*"));
    return Dig.status(out) + (ad ? " AD" : " insecure");
  }

  @Test
  void unboundWithTheTrustAnchor_authenticatesEveryKindOfAnswer_R_DNSSEC_1_R_DNSSEC_2() throws Exception {
    NameServerProcess unbound = unbound(edge(keys, Clock.systemUTC()), "unbound", 300);
    assertThat(validated(unbound, "static." + ZONE, "A")).isEqualTo("NOERROR AD");
    assertThat(validated(unbound, "www." + ZONE, "A")).as("CNAME chain").isEqualTo("NOERROR AD");
    assertThat(validated(unbound, "api." + ZONE, "A")).as("WRR, health-checked").isEqualTo("NOERROR AD");
    assertThat(validated(unbound, "geo." + ZONE, "A")).as("geo").isEqualTo("NOERROR AD");
    assertThat(validated(unbound, "wary." + ZONE, "A")).as("failover").isEqualTo("NOERROR AD");
    assertThat(validated(unbound, "fallback." + ZONE, "A")).as("fallback answer").isEqualTo("NOERROR AD");
    assertThat(validated(unbound, "closed." + ZONE, "A")).as("fail closed: NODATA").isEqualTo("NOERROR AD");
    assertThat(validated(unbound, "static." + ZONE, "TXT")).as("NODATA").isEqualTo("NOERROR AD");
    assertThat(validated(unbound, "_tcp." + ZONE, "A")).as("empty non-terminal").isEqualTo("NOERROR AD");
    assertThat(validated(unbound, "nothing." + ZONE, "A")).as("name that does not exist").isEqualTo("NOERROR AD");
    assertThat(validated(unbound, "big." + ZONE, "TXT")).as("truncated, then over TCP").isEqualTo("NOERROR AD");
    assertThat(validated(unbound, ZONE, "MX")).isEqualTo("NOERROR AD");
    assertThat(validated(unbound, ZONE, "DNSKEY")).isEqualTo("NOERROR AD");
  }

  @Test
  void healthFlipsAndFailover_validateAtEveryStep_R_DNSSEC_1() throws Exception {
    NameServerProcess unbound = unbound(edge(keys, Clock.systemUTC()), "unbound", 1);
    List<String> seen = new ArrayList<>();
    for (HealthStatus status : List.of(HealthStatus.UNHEALTHY, HealthStatus.HEALTHY, HealthStatus.UNHEALTHY)) {
      state.health(EntityKind.FORWARDING_RULE, "fr-orders", status);
      snapshot.set(state.snapshot(true));
      Thread.sleep(2100); // past the capped TTL, which unbound counts in whole seconds
      assertThat(validated(unbound, "api." + ZONE, "A")).as("WRR with " + status).isEqualTo("NOERROR AD");
      assertThat(validated(unbound, "wary." + ZONE, "A")).as("failover with " + status).isEqualTo("NOERROR AD");
      seen.add(String.join(",", Dig.answers(unbound.port(), "api." + ZONE, "A")));
    }
    assertThat(seen).as("the WRR answer follows health").containsExactly("10.9.0.1", "10.1.0.100", "10.9.0.1");
  }

  @Test
  void aZskRolloverByKeyTiming_validatesThroughout_R_DNSSEC_3() throws Exception {
    int ttl = 2;
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Path rolling = Files.createDirectories(dir.resolve("rolling"));
    ZoneKey k = ZoneKey.generate(Name.fromString(ZONE), DNSSEC.Algorithm.ECDSAP256SHA256, true, ttl,
        KeyTiming.from(now.minusSeconds(60)));
    ZoneKey old = ZoneKey.generate(Name.fromString(ZONE), DNSSEC.Algorithm.ECDSAP256SHA256, false, ttl,
        KeyTiming.from(now.minusSeconds(60)));
    ksk = k;
    BindKeyFiles.write(k, rolling);
    BindKeyFiles.write(old, rolling);
    EdgeServer edge = edge(rolling, Clock.systemUTC());
    NameServerProcess unbound = unbound(edge, "unbound", ttl);
    assertThat(validated(unbound, "static." + ZONE, "A")).isEqualTo("NOERROR AD");
    List<String> steps = new ArrayList<>(List.of(tags(edge, k.tag(), old.tag())));
    // The successor is published at once, signs from +3 s; the old key retires then and leaves at +6 s
    // (its signatures and the DNSKEY set unbound holds live 2 s, so each step outlasts every cache).
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    ZoneKey next = ZoneKey.generate(Name.fromString(ZONE), DNSSEC.Algorithm.ECDSAP256SHA256, false, ttl,
        new KeyTiming(start, start, start.plusSeconds(3), null, null));
    BindKeyFiles.write(next, rolling);
    BindKeyFiles.write(old.withTiming(new KeyTiming(old.timing().created(), old.timing().publish(),
        old.timing().activate(), start.plusSeconds(3), start.plusSeconds(6))), rolling);
    while (Instant.now().isBefore(start.plusSeconds(9))) {
      for (String name : List.of("static.", "www.", "nothing.")) {
        String result = validated(unbound, name + ZONE, "A");
        assertThat(result).as(name + " at " + Instant.now()).isEqualTo("NOERROR AD");
      }
      String tags = tags(edge, k.tag(), old.tag());
      if (steps.isEmpty() || !steps.get(steps.size() - 1).equals(tags)) {
        steps.add(tags);
      }
      Thread.sleep(300);
    }
    assertThat(steps).as("published, both, then only the successor").containsExactly("[K, old]", "[K, new, old]",
        "[K, new]");
  }

  @Test
  void aTamperedOrExpiredSignature_isRejected_R_DNSSEC_4() throws Exception {
    // Tampered: the ZSK's private key replaced, so its signatures do not match the published key.
    Path forged = Files.createDirectories(dir.resolve("forged"));
    for (Path p : Files.list(keys).toList()) {
      Files.copy(p, forged.resolve(p.getFileName()));
    }
    ZoneKey zsk = io.healthmesh.edge.dnssec.BindKeyFiles.read(Files.list(keys)
        .filter(p -> p.toString().endsWith(".key")).filter(p -> !p.getFileName().toString().contains(
            String.format("%05d", ksk.tag()))).findFirst().orElseThrow());
    ZoneKey other = ZoneKey.generate(Name.fromString(ZONE), DNSSEC.Algorithm.ECDSAP256SHA256, false, 3600,
        zsk.timing());
    BindKeyFiles.write(new ZoneKey(zsk.zone(), zsk.dnskey(), other.privateKey(), zsk.timing(), zsk.file()), forged);
    NameServerProcess tampered = unbound(edge(forged, Clock.systemUTC()), "tampered", 300);
    assertThat(validated(tampered, "static." + ZONE, "A")).isEqualTo("SERVFAIL insecure");
    // Expired: an edge whose clock is 30 days behind signs for 7 days from then.
    NameServerProcess expired = unbound(edge(keys, Clock.offset(Clock.systemUTC(), Duration.ofDays(-30))),
        "expired", 300);
    assertThat(validated(expired, "static." + ZONE, "A")).isEqualTo("SERVFAIL insecure");
    // The same edge, honest and on time, validates: the failures above are the signatures'.
    assertThat(validated(unbound(edge(keys, Clock.systemUTC()), "honest", 300), "static." + ZONE, "A"))
        .isEqualTo("NOERROR AD");
  }

  @Test
  void delvAndDnsjavasValidatingResolver_authenticateTheAnswers_R_DNSSEC_1() throws Exception {
    EdgeServer edge = edge(keys, Clock.systemUTC());
    Path anchors = dir.resolve("anchors.conf");
    var ds = ksk.ds(3600);
    Files.writeString(anchors, "trust-anchors {\n  \"" + ZONE + "\" static-ds " + ds.getFootprint() + " "
        + ds.getAlgorithm() + " " + ds.getDigestID() + " \"" + org.xbill.DNS.utils.base16.toString(ds.getDigest())
        + "\";\n};\n");
    for (String name : List.of("static.", "www.", "nothing.")) {
      Process delv = new ProcessBuilder("delv", "@127.0.0.1", "-p", String.valueOf(edge.port()), "-a",
          anchors.toString(), "+root=" + ZONE, name + ZONE, "A").redirectErrorStream(true).start();
      assertThat(delv.waitFor(30, TimeUnit.SECONDS)).isTrue();
      String out = new String(delv.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(out).as(name).contains("fully validated");
    }
    SimpleResolver direct = new SimpleResolver("127.0.0.1");
    direct.setPort(edge.port());
    direct.setTCP(true);
    ValidatingResolver resolver = new ValidatingResolver(direct);
    resolver.loadTrustAnchors(new java.io.ByteArrayInputStream((ds.toString() + "\n").getBytes(StandardCharsets.US_ASCII)));
    for (String name : List.of("static.", "api.", "www.", "nothing.")) {
      Message q = Message.newQuery(Record.newRecord(Name.fromString(name + ZONE), Type.A, DClass.IN));
      Message reply = resolver.send(q);
      assertThat(reply.getHeader().getFlag(Flags.AD)).as(name + ": " + reply).isTrue();
      assertThat(reply.getRcode()).isEqualTo(Rcode.NOERROR);
    }
  }

  @Test
  void ldnsVerifyZone_acceptsEveryNameAndTypeAsTheEdgeServesThem_R_DNSSEC_1() throws Exception {
    EdgeServer edge = edge(keys, Clock.systemUTC());
    SimpleResolver r = new SimpleResolver("127.0.0.1");
    r.setPort(edge.port());
    r.setTCP(true);
    r.setEDNS(0, 1232, org.xbill.DNS.ExtendedFlags.DO);
    java.util.Set<String> lines = new java.util.TreeSet<>();
    io.healthmesh.edge.state.Zone zone = snapshot.get().zoneFor(Name.fromString(ZONE));
    List<Name> names = new ArrayList<>();
    zone.existing().forEach((name, exists) -> names.add(name));
    for (Name name : names) {
      java.util.Set<Integer> types = new java.util.TreeSet<>(List.of(Type.NULL)); // a type no name holds: its NSEC
      if (zone.types(name) != null) {
        types.addAll(zone.types(name).keySet());
      }
      if (name.equals(zone.origin())) {
        types.addAll(List.of(Type.SOA, Type.DNSKEY));
      }
      for (int type : types) {
        Message reply = r.send(Message.newQuery(Record.newRecord(name, type, DClass.IN)));
        for (int section : new int[] {org.xbill.DNS.Section.ANSWER, org.xbill.DNS.Section.AUTHORITY}) {
          reply.getSection(section).forEach(rec -> lines.add(rec.toString()));
        }
      }
    }
    Path anchor = dir.resolve("ksk.key");
    Files.writeString(anchor, ksk.dnskey().toString() + "\n");
    // Compact denial has no chain by design (R-DNSSEC-2): each NSEC covers its own name only, and a
    // CNAME's owner is never denied. Those are the only complaints allowed; every signature verifies.
    List<String> errors = ldnsVerifyZone(List.copyOf(lines), anchor);
    assertThat(errors).as(String.join("\n", lines)).allMatch(e -> e.endsWith("points to the wrong next owner name")
        || e.equals("Error: there is no NSEC(3) for www.example.internal.")
        || e.equals("Error: there is no NSEC(3) for outside.example.internal."));
    // The same dump with one signature changed: ldns-verify-zone does check them.
    List<String> tampered = new ArrayList<>(lines);
    int at = tampered.indexOf(tampered.stream().filter(l -> l.startsWith("static.") && l.contains("RRSIG\tA "))
        .findFirst().orElseThrow());
    String sig = tampered.get(at);
    tampered.set(at, sig.substring(0, sig.length() - 6) + (sig.charAt(sig.length() - 6) == 'A' ? 'B' : 'A')
        + sig.substring(sig.length() - 5));
    assertThat(ldnsVerifyZone(tampered, anchor)).anyMatch(e -> e.contains("static.example.internal.")
        && !e.contains("NSEC"));
  }

  /** ldns-verify-zone's errors over a zone file of {@code lines}. */
  private List<String> ldnsVerifyZone(List<String> lines, Path anchor) throws Exception {
    Path zoneFile = Files.createTempFile(dir, "served", ".zone");
    Files.write(zoneFile, lines);
    Process verify = new ProcessBuilder("ldns-verify-zone", "-k", anchor.toString(), zoneFile.toString())
        .redirectErrorStream(true).start();
    String out = new String(verify.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(verify.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return out.lines().filter(l -> l.startsWith("Error")).toList();
  }

  /** The edge's DNSKEY set now: K for the key-signing key, old and new for the two zone-signing keys. */
  private static String tags(EdgeServer edge, int ksk, int old) throws Exception {
    return dnskeys(edge).getSection(org.xbill.DNS.Section.ANSWER).stream()
        .filter(r -> r instanceof org.xbill.DNS.DNSKEYRecord).map(r -> ((org.xbill.DNS.DNSKEYRecord) r).getFootprint())
        .map(tag -> tag == ksk ? "K" : tag == old ? "old" : "new").sorted().toList().toString();
  }

  private static Message dnskeys(EdgeServer edge) throws Exception {
    SimpleResolver r = new SimpleResolver("127.0.0.1");
    r.setPort(edge.port());
    r.setTCP(true);
    r.setEDNS(0, 1232, org.xbill.DNS.ExtendedFlags.DO);
    return r.send(Message.newQuery(Record.newRecord(Name.fromString(ZONE), Type.DNSKEY, DClass.IN)));
  }
}
