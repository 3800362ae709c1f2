package io.healthmesh.edge.answer;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.edge.dnssec.OnlineSigning;
import io.healthmesh.edge.dnssec.ResponseSigner;
import io.healthmesh.edge.dnssec.SignedZoneFixture;
import io.healthmesh.edge.dnssec.ZoneKey;
import io.healthmesh.edge.routing.Regions;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.routing.SubnetRegions;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSKEYRecord;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.NSECRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/** Signed answers from the reply function, checked with dnsjava's DNSSEC verification. */
class SignedAnswerTest {
  private static final InetAddress INSIDE = address("10.1.2.3");

  @TempDir
  Path keysDir;

  private final EdgeState state = Fixtures.state();
  private final AtomicReference<Snapshot> snapshot = new AtomicReference<>();
  private List<ZoneKey> keys;
  private OnlineSigning signing;
  private Responder signed;
  private Responder unsigned;

  @BeforeEach
  void signTheZone() throws Exception {
    state.zone("internal", SignedZoneFixture.signed(SignedZoneFixture.privateZone("internal", Fixtures.ZONE)));
    snapshot.set(state.snapshot(true));
    keys = SignedZoneFixture.keys(keysDir, Fixtures.ZONE);
    signing = SignedZoneFixture.signing(keysDir, Clock.systemUTC());
    signed = responder(signing);
    unsigned = responder(null);
  }

  @AfterEach
  void close() {
    signing.close();
  }

  private Responder responder(OnlineSigning with) {
    return new Responder(snapshot::get, new RoutingEngine(Regions.builtIn()), "us-east1", SubnetRegions.NONE,
        Rcode.SERVFAIL, () -> new SplittableRandom(1), Responder.DecisionListener.NONE, null, PolicyListener.NONE,
        with);
  }

  private static Message query(String name, int type, int ednsFlags) {
    Message q = Message.newQuery(Record.newRecord(Name.fromConstantString(name), type, DClass.IN));
    q.addRecord(new OPTRecord(1232, 0, 0, ednsFlags), Section.ADDITIONAL);
    return q;
  }

  private Message ask(Responder responder, Message query, boolean tcp) throws Exception {
    return new Message(responder.reply(query.toWire(), INSIDE, tcp));
  }

  /** Verifies every RRset of the answer and authority sections with the zone's keys; returns them. */
  private Map<String, RRset> verified(Message m) throws Exception {
    Map<String, RRset> sets = new LinkedHashMap<>();
    List<RRSIGRecord> sigs = new ArrayList<>();
    for (int section : new int[] {Section.ANSWER, Section.AUTHORITY}) {
      for (Record r : m.getSection(section)) {
        if (r instanceof RRSIGRecord sig) {
          sigs.add(sig);
        } else {
          sets.computeIfAbsent(r.getName() + " " + Type.string(r.getType()), k -> new RRset()).addRR(r);
        }
      }
    }
    for (Map.Entry<String, RRset> e : sets.entrySet()) {
      List<RRSIGRecord> covering = sigs.stream().filter(s -> s.getName().equals(e.getValue().getName())
          && s.getTypeCovered() == e.getValue().getType()).toList();
      assertThat(covering).as("signatures of " + e.getKey()).isNotEmpty();
      for (RRSIGRecord sig : covering) {
        DNSKEYRecord key = keys.stream().filter(k -> k.tag() == sig.getFootprint()).findFirst().orElseThrow().dnskey();
        DNSSEC.verify(e.getValue(), sig, key, Instant.now());
      }
    }
    return sets;
  }

  @Test
  void theAnswerAsServed_isSigned_byTheZoneSigningKey_R_DNSSEC_1() throws Exception {
    Message m = ask(signed, query("static.example.internal.", Type.A, ExtendedFlags.DO), false);
    assertThat(verified(m)).containsOnlyKeys("static.example.internal. A");
    ZoneKey zsk = keys.stream().filter(k -> !k.ksk()).findFirst().orElseThrow();
    assertThat(m.getSection(Section.ANSWER).stream().filter(r -> r instanceof RRSIGRecord)
        .map(r -> ((RRSIGRecord) r).getFootprint())).containsExactly(zsk.tag());
    assertThat(m.getOPT().getFlags() & ExtendedFlags.DO).as("DO copied").isNotZero();
    assertThat(m.getHeader().getFlag(Flags.AA)).isTrue();
    // A health-aware subset is signed as served: the WRR answer of api changes with its target's health.
    state.health(EntityKind.FORWARDING_RULE, "fr-orders", HealthStatus.UNHEALTHY);
    snapshot.set(state.snapshot(true));
    Message flipped = ask(signed, query("api.example.internal.", Type.A, ExtendedFlags.DO), false);
    assertThat(verified(flipped)).containsOnlyKeys("api.example.internal. A");
  }

  @Test
  void withoutDo_theAnswerIsByteForByteTheUnsignedOne_R_DNSSEC_1() throws Exception {
    for (String name : List.of("static.", "www.", "nothing.", "big.", "closed.", "")) {
      for (int type : new int[] {Type.A, Type.AAAA, Type.TXT, Type.SOA, Type.DNSKEY}) {
        for (boolean edns : new boolean[] {false, true}) {
          Message q = edns ? query(name + Fixtures.ZONE, type, 0)
              : Message.newQuery(Record.newRecord(Name.fromConstantString(name + Fixtures.ZONE), type, DClass.IN));
          if (type == Type.DNSKEY && name.isEmpty()) {
            assertThat(ask(signed, q, false).getSection(Section.ANSWER)).hasSize(2); // the keys are public
            continue;
          }
          assertThat(signed.reply(q.toWire(), INSIDE, false)).as(name + " " + Type.string(type) + " edns " + edns)
              .isEqualTo(unsigned.reply(q.toWire(), INSIDE, false));
        }
      }
    }
  }

  @Test
  void theDnskeySet_isSignedByTheKeySigningKey_andCnameChainsLinkByLink_R_DNSSEC_1() throws Exception {
    Message dnskey = ask(signed, query(Fixtures.ZONE, Type.DNSKEY, ExtendedFlags.DO), false);
    assertThat(verified(dnskey)).containsOnlyKeys("example.internal. DNSKEY");
    ZoneKey ksk = keys.stream().filter(ZoneKey::ksk).findFirst().orElseThrow();
    assertThat(dnskey.getSection(Section.ANSWER).stream().filter(r -> r instanceof RRSIGRecord)
        .map(r -> ((RRSIGRecord) r).getFootprint())).containsExactly(ksk.tag());
    assertThat(verified(ask(signed, query("www.example.internal.", Type.A, ExtendedFlags.DO), false)))
        .containsOnlyKeys("www.example.internal. CNAME", "static.example.internal. A");
    assertThat(verified(ask(signed, query(Fixtures.ZONE, Type.SOA, ExtendedFlags.DO), false)))
        .containsOnlyKeys("example.internal. SOA");
  }

  @Test
  void aNameThatDoesNotExist_isDeniedCompactly_andNxdomainKeptOnlyForCo_R_DNSSEC_2() throws Exception {
    Message m = ask(signed, query("nothing.example.internal.", Type.A, ExtendedFlags.DO), false);
    assertThat(m.getRcode()).isEqualTo(Rcode.NOERROR);
    Map<String, RRset> sets = verified(m);
    assertThat(sets).containsOnlyKeys("example.internal. SOA", "nothing.example.internal. NSEC");
    NSECRecord nsec = (NSECRecord) sets.get("nothing.example.internal. NSEC").first();
    assertThat(nsec.getNext()).isEqualTo(Name.fromString("\\000.nothing.example.internal."));
    assertThat(nsec.getTypes()).containsExactly(Type.RRSIG, Type.NSEC, ResponseSigner.NXNAME);
    assertThat(nsec.getTTL()).isEqualTo(snapshot.get().zoneFor(Name.fromString(Fixtures.ZONE)).soa().getMinimum());
    Message co = ask(signed, query("nothing.example.internal.", Type.A, ExtendedFlags.DO | Responder.CO_FLAG), false);
    assertThat(co.getRcode()).isEqualTo(Rcode.NXDOMAIN);
  }

  @Test
  void nodata_listsTheTypesTheNameHoldsNow_withoutTheOneAsked_R_DNSSEC_2() throws Exception {
    Map<String, RRset> sets = verified(ask(signed, query("static.example.internal.", Type.TXT, ExtendedFlags.DO), false));
    NSECRecord nsec = (NSECRecord) sets.get("static.example.internal. NSEC").first();
    assertThat(nsec.getTypes()).containsExactly(Type.A, Type.AAAA, Type.RRSIG, Type.NSEC);
    // R-OP-1: a record set failing closed answers NODATA, and its NSEC denies the type.
    Message closed = ask(signed, query("closed.example.internal.", Type.A, ExtendedFlags.DO), false);
    assertThat(((NSECRecord) verified(closed).get("closed.example.internal. NSEC").first()).getTypes())
        .containsExactly(Type.RRSIG, Type.NSEC);
    NSECRecord apex = (NSECRecord) verified(ask(signed, query(Fixtures.ZONE, Type.A, ExtendedFlags.DO), false))
        .get("example.internal. NSEC").first();
    assertThat(apex.getTypes()).containsExactly(Type.SOA, Type.MX, Type.RRSIG, Type.NSEC, Type.DNSKEY);
    NSECRecord emptyNonTerminal = (NSECRecord) verified(ask(signed, query("_tcp.example.internal.", Type.A,
        ExtendedFlags.DO), false)).get("_tcp.example.internal. NSEC").first();
    assertThat(emptyNonTerminal.getTypes()).containsExactly(Type.RRSIG, Type.NSEC);
  }

  @Test
  void aSignedAnswerTooBigForUdp_isTruncatedWhole_andWholeOverTcp_R_DNSSEC_5() throws Exception {
    Message q = query("big.example.internal.", Type.TXT, ExtendedFlags.DO);
    q.getHeader().setFlag(Flags.CD);
    Message udp = ask(signed, q, false);
    assertThat(udp.getHeader().getFlag(Flags.TC)).isTrue();
    assertThat(udp.getSection(Section.ANSWER)).isEmpty();
    Message tcp = ask(signed, q, true);
    assertThat(tcp.getHeader().getFlag(Flags.TC)).isFalse();
    assertThat(tcp.getHeader().getFlag(Flags.CD)).as("CD copied").isTrue();
    assertThat(verified(tcp).get("big.example.internal. TXT").size()).isEqualTo(40);
  }

  @Test
  void theFastPath_answersFromTheCache_byteForByteAsTheFullPath_R_DNSSEC_4() throws Exception {
    byte[] q = query("static.example.internal.", Type.A, ExtendedFlags.DO).toWire();
    byte[] first = signed.reply(q, INSIDE, false); // the full path signs: the fast path has no signature yet
    byte[] fast = FastPath.reply(q, INSIDE, false, snapshot.get(), new RoutingEngine(Regions.builtIn()), "us-east1",
        new SplittableRandom(1), Responder.DecisionListener.NONE, signing);
    assertThat(fast).isNotNull().isEqualTo(first);
    assertThat(signed.fullReply(q, INSIDE, false)).isEqualTo(first);
  }

  @Test
  void withoutActiveKeys_aSignedZoneAnswersServfail_neverUnsigned_R_DNSSEC_3() throws Exception {
    OnlineSigning none = SignedZoneFixture.signing(keysDir.resolve("missing"), Clock.systemUTC());
    try {
      Message m = ask(responder(none), query("static.example.internal.", Type.A, ExtendedFlags.DO), false);
      assertThat(m.getRcode()).isEqualTo(Rcode.SERVFAIL);
      assertThat(m.getOPT().getOptions(org.xbill.DNS.EDNSOption.Code.EDNS_EXTENDED_ERROR)).singleElement()
          .asString().contains("RRSIGS_MISSING");
      assertThat(none.problems(snapshot.get().zones())).anySatisfy(p -> assertThat(p).contains("example.internal.")
          .contains("R-DNSSEC-3"));
      assertThat(signing.problems(snapshot.get().zones())).isEmpty();
    } finally {
      none.close();
    }
  }

  @Test
  void neverThrows_whenFedMangledQueriesWithDo_andStillSigns_R_DNSSEC_1() throws Exception {
    java.util.SplittableRandom random = new java.util.SplittableRandom(5);
    List<byte[]> valid = new ArrayList<>();
    for (String name : List.of("static.", "www.", "nothing.", "big.", "")) {
      for (int type : new int[] {Type.A, Type.TXT, Type.DNSKEY, Type.ANY}) {
        valid.add(query(name + Fixtures.ZONE, type, ExtendedFlags.DO | Responder.CO_FLAG).toWire());
      }
    }
    for (int i = 0; i < 20_000; i++) {
      byte[] packet = valid.get(random.nextInt(valid.size())).clone();
      for (int k = 0; k < 1 + random.nextInt(3); k++) {
        packet[random.nextInt(packet.length)] = (byte) random.nextInt(256);
      }
      byte[] reply = signed.reply(packet, INSIDE, random.nextBoolean());
      if (reply != null) {
        new Message(reply); // whatever it answers parses
      }
    }
    assertThat(verified(ask(signed, query("static.example.internal.", Type.A, ExtendedFlags.DO), false)))
        .containsOnlyKeys("static.example.internal. A");
  }

  private static InetAddress address(String a) {
    try {
      return InetAddress.getByName(a);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
