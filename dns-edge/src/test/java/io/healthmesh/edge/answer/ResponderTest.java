package io.healthmesh.edge.answer;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/** The reply function, byte for byte, without sockets. */
class ResponderTest {
  private static final InetAddress INSIDE = address("10.1.2.3");
  private static final InetAddress OUTSIDE = address("192.168.7.7");
  private final EdgeState state = Fixtures.state();
  private final AtomicReference<Snapshot> snapshot = new AtomicReference<>(state.snapshot(true));
  private final Responder responder = Fixtures.responder(snapshot);

  private Message ask(String name, int type) {
    return ask(Message.newQuery(Record.newRecord(Name.fromConstantString(name), type, DClass.IN)), INSIDE, false);
  }

  private Message ask(Message query, InetAddress client, boolean tcp) {
    byte[] reply = responder.reply(query.toWire(), client, tcp);
    try {
      return new Message(reply);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static List<String> answers(Message m) {
    return m.getSection(Section.ANSWER).stream().map(r -> Type.string(r.getType()) + " " + r.rdataToString()).toList();
  }

  @Test
  void answersEveryRecordTypeAuthoritatively() {
    assertThat(answers(ask("static.example.internal.", Type.A))).containsExactly("A 10.0.0.5");
    assertThat(answers(ask("static.example.internal.", Type.AAAA))).containsExactly("AAAA fd00:0:0:0:0:0:0:5");
    assertThat(answers(ask("example.internal.", Type.MX))).containsExactly("MX 10 mail.example.internal.");
    assertThat(answers(ask("_sip._tcp.example.internal.", Type.SRV))).containsExactly("SRV 10 60 5060 sip.example.internal.");
    assertThat(answers(ask("txt.example.internal.", Type.TXT))).containsExactly("TXT \"hello\"");
    Message m = ask("static.example.internal.", Type.A);
    assertThat(m.getHeader().getFlag(Flags.AA)).isTrue();
    assertThat(m.getHeader().getFlag(Flags.QR)).isTrue();
    assertThat(m.getSection(Section.ANSWER).get(0).getTTL()).isEqualTo(300);
  }

  @Test
  void answersTheLiveRecordSet_andDecidesTheDryRunBesideIt_R_OP_5() {
    List<String> dryRuns = new java.util.ArrayList<>();
    Responder recording = Fixtures.responder(snapshot, new Responder.DecisionListener() {
      @Override
      public void decided(Name name, int type, String region, String subnet, io.healthmesh.edge.state.RecordSetEntry entry,
          io.healthmesh.edge.routing.Decision decision) {}

      @Override
      public void dryRun(Name name, int type, String region, String subnet, io.healthmesh.edge.state.RecordSetEntry entry,
          io.healthmesh.edge.routing.Decision dryRun, boolean differs) {
        dryRuns.add(name + " " + dryRun.answer() + " " + dryRun.reason() + (differs ? " differs" : " same") + " @"
            + entry.dryRun().version());
      }
    });
    io.healthmesh.config.ResourceRecordSet dry = io.healthmesh.config.ResourceRecordSet.newBuilder().setZone("internal")
        .setName("static.example.internal.").setType("A").setTtl(300).setRrdatas(List.of("10.0.0.6")).setDryRun(true)
        .build();
    assertThat(state.recordSet("internal/static.example.internal./A/dry-run", dry, 42)).isNull();
    snapshot.set(state.snapshot(true));

    byte[] reply = recording.reply(Message.newQuery(Record.newRecord(Name.fromConstantString("static.example.internal."),
        Type.A, DClass.IN)).toWire(), INSIDE, false);
    assertThat(answers(parse(reply))).as("the live version answers").containsExactly("A 10.0.0.5");
    assertThat(dryRuns).containsExactly("static.example.internal. [10.0.0.6] STATIC differs @42");

    state.recordSet("internal/static.example.internal./A/dry-run", io.healthmesh.config.ResourceRecordSet.newBuilder(dry)
        .setRrdatas(List.of("10.0.0.5")).build(), 43);
    snapshot.set(state.snapshot(true));
    recording.reply(Message.newQuery(Record.newRecord(Name.fromConstantString("static.example.internal."), Type.A,
        DClass.IN)).toWire(), INSIDE, false);
    assertThat(dryRuns).last().isEqualTo("static.example.internal. [10.0.0.5] STATIC same @43");

    assertThat(state.recordSet("internal/static.example.internal./A", dry, 44)).as("a dry run under the live key")
        .isNotNull();
    state.recordSet("internal/static.example.internal./A/dry-run", null, 45);
    snapshot.set(state.snapshot(true));
    recording.reply(Message.newQuery(Record.newRecord(Name.fromConstantString("static.example.internal."), Type.A,
        DClass.IN)).toWire(), INSIDE, false);
    assertThat(dryRuns).as("deleted: decided no more").hasSize(2);
  }

  private static Message parse(byte[] reply) {
    try {
      return new Message(reply);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void followsCnameInsideTheZone_andStopsAtItsEdge() {
    assertThat(answers(ask("www.example.internal.", Type.A)))
        .containsExactly("CNAME static.example.internal.", "A 10.0.0.5");
    assertThat(answers(ask("outside.example.internal.", Type.A))).containsExactly("CNAME elsewhere.example.com.");
  }

  @Test
  void answersNxdomainAndNodataWithTheZoneSoa() {
    Message nx = ask("nope.example.internal.", Type.A);
    assertThat(nx.getRcode()).isEqualTo(Rcode.NXDOMAIN);
    assertThat(nx.getSection(Section.AUTHORITY)).singleElement().satisfies(r -> assertThat(r.getType()).isEqualTo(Type.SOA));
    Message nodata = ask("static.example.internal.", Type.MX);
    assertThat(nodata.getRcode()).isEqualTo(Rcode.NOERROR);
    assertThat(nodata.getSection(Section.ANSWER)).isEmpty();
    assertThat(nodata.getSection(Section.AUTHORITY)).singleElement().satisfies(r -> assertThat(r.getType()).isEqualTo(Type.SOA));
    assertThat(ask("_tcp.example.internal.", Type.A).getRcode()).as("empty non-terminal").isEqualTo(Rcode.NOERROR);
    assertThat(answers(ask("example.internal.", Type.SOA))).singleElement().asString().startsWith("SOA ns1.example.internal.");
  }

  @Test
  void refusesNamesOutsideEveryZone_andClientsOutsideAPrivateZonesNetworks() {
    assertThat(ask("www.example.com.", Type.A).getRcode()).isEqualTo(Rcode.REFUSED);
    Message query = Message.newQuery(Record.newRecord(Name.fromConstantString("static.example.internal."), Type.A, DClass.IN));
    assertThat(ask(query, OUTSIDE, false).getRcode()).isEqualTo(Rcode.REFUSED);
    Message publicQuery = Message.newQuery(Record.newRecord(Name.fromConstantString("www.example.org."), Type.A, DClass.IN));
    assertThat(answers(ask(publicQuery, OUTSIDE, false))).containsExactly("A 192.0.2.1");
  }

  @Test
  void answersNotimpForOtherOpcodes_andFormerrForMalformedQueries() {
    Message notify = Message.newQuery(Record.newRecord(Name.fromConstantString("example.internal."), Type.SOA, DClass.IN));
    notify.getHeader().setOpcode(Opcode.NOTIFY);
    assertThat(ask(notify, INSIDE, false).getRcode()).isEqualTo(Rcode.NOTIMP);

    byte[] wire = Message.newQuery(Record.newRecord(Name.fromConstantString("static.example.internal."), Type.A, DClass.IN)).toWire();
    byte[] cut = java.util.Arrays.copyOf(wire, wire.length - 3);
    byte[] reply = responder.reply(cut, INSIDE, false);
    assertThat(reply).isNotNull();
    assertThat(reply[3] & 0x0f).isEqualTo(Rcode.FORMERR);
    assertThat(reply[0]).isEqualTo(wire[0]);
    assertThat(responder.reply(new byte[] {1, 2, 3}, INSIDE, false)).as("too short to answer: dropped").isNull();

    Message noQuestion = new Message();
    assertThat(ask(noQuestion, INSIDE, false).getRcode()).isEqualTo(Rcode.FORMERR);
  }

  @Test
  void answersBadversForAnEdnsVersionAboveZero() {
    Message query = Message.newQuery(Record.newRecord(Name.fromConstantString("static.example.internal."), Type.A, DClass.IN));
    query.addRecord(new OPTRecord(1232, 0, 1, 0), Section.ADDITIONAL);
    Message reply = ask(query, INSIDE, false);
    assertThat(reply.getRcode()).isEqualTo(Rcode.BADVERS);
  }

  @Test
  void answersFormerr_whenOptRecordsBreakRfc6891() {
    Name name = Name.fromConstantString("static.example.internal.");
    Message two = Message.newQuery(Record.newRecord(name, Type.A, DClass.IN));
    two.addRecord(new OPTRecord(1232, 0, 0, 0), Section.ADDITIONAL);
    two.addRecord(new OPTRecord(1232, 0, 0, 0), Section.ADDITIONAL);
    assertThat(ask(two, INSIDE, false).getRcode()).as("two OPT records").isEqualTo(Rcode.FORMERR);

    Message inAuthority = Message.newQuery(Record.newRecord(name, Type.A, DClass.IN));
    inAuthority.addRecord(new OPTRecord(1232, 0, 0, 0), Section.AUTHORITY);
    assertThat(ask(inAuthority, INSIDE, false).getRcode()).as("OPT outside additional").isEqualTo(Rcode.FORMERR);

    Message owned = Message.newQuery(Record.newRecord(name, Type.A, DClass.IN));
    owned.addRecord(Record.newRecord(name, Type.OPT, 1232, 0), Section.ADDITIONAL);
    assertThat(ask(owned, INSIDE, false).getRcode()).as("OPT with a non-root owner").isEqualTo(Rcode.FORMERR);
  }

  @Test
  void answersRefused_whenTheQueryIsNotOfClassIn() {
    for (int dclass : new int[] {DClass.CH, DClass.HS}) {
      Message query = Message.newQuery(Record.newRecord(Name.fromConstantString("version.bind."), Type.TXT, dclass));
      assertThat(ask(query, INSIDE, false).getRcode()).as(DClass.string(dclass)).isEqualTo(Rcode.REFUSED);
    }
  }

  @Test
  void answersServfailUntilReady() {
    snapshot.set(Snapshot.NOT_READY);
    assertThat(ask("static.example.internal.", Type.A).getRcode()).isEqualTo(Rcode.SERVFAIL);
  }

  @Test
  void answersAnyMinimally_RFC8482() {
    assertThat(answers(ask("static.example.internal.", Type.ANY))).singleElement().asString().startsWith("HINFO \"RFC8482\"");
  }

  @Test
  void setsTcWhenTheAnswerDoesNotFitUdp_andAnswersWholeOverTcp() {
    Message query = Message.newQuery(Record.newRecord(Name.fromConstantString("big.example.internal."), Type.TXT, DClass.IN));
    Message udp = ask(query, INSIDE, false);
    assertThat(udp.getHeader().getFlag(Flags.TC)).isTrue();
    Message tcp = ask(query, INSIDE, true);
    assertThat(tcp.getHeader().getFlag(Flags.TC)).isFalse();
    assertThat(tcp.getSection(Section.ANSWER)).hasSize(40);
  }

  @Test
  void routesByTheRegionOfTheClientSubnet_andEchoesItsScope_R_GEO_1() {
    Message query = Message.newQuery(Record.newRecord(Name.fromConstantString("geo.example.internal."), Type.A, DClass.IN));
    query.addRecord(new OPTRecord(1232, 0, 0, 0, List.of(new ClientSubnetOption(24, address("10.200.3.0")))), Section.ADDITIONAL);
    Message reply = ask(query, INSIDE, false);
    assertThat(answers(reply)).containsExactly("A 10.3.0.1");
    List<EDNSOption> echoed = reply.getOPT().getOptions(EDNSOption.Code.CLIENT_SUBNET);
    assertThat(((ClientSubnetOption) echoed.get(0)).getScopePrefixLength()).isEqualTo(24);
    assertThat(answers(ask("geo.example.internal.", Type.A))).as("edge's own region").containsExactly("A 10.1.0.1");
    Message unmapped = Message.newQuery(Record.newRecord(Name.fromConstantString("geo.example.internal."), Type.A,
        DClass.IN));
    unmapped.addRecord(new OPTRecord(1232, 0, 0, 0, List.of(new ClientSubnetOption(24, address("10.50.3.0")))),
        Section.ADDITIONAL);
    Message other = ask(unmapped, INSIDE, false);
    assertThat(answers(other)).containsExactly("A 10.1.0.1");
    assertThat(((ClientSubnetOption) other.getOPT().getOptions(EDNSOption.Code.CLIENT_SUBNET).get(0))
        .getScopePrefixLength()).as("valid for its own /24 only, or a resolver would give it to 10.200.0.0/16 too")
        .isEqualTo(24);
  }

  @Test
  void reflectsHealthOfTheSnapshot_R_WRR_6() {
    assertThat(answers(ask("api.example.internal.", Type.A))).containsExactly("A 10.1.0.100");
    state.health(EntityKind.FORWARDING_RULE, "fr-orders", HealthStatus.UNHEALTHY);
    snapshot.set(state.snapshot(true));
    assertThat(answers(ask("api.example.internal.", Type.A))).containsExactly("A 10.9.0.1");
  }

  @Test
  void neverThrows_whenFedRandomBytes() {
    java.util.SplittableRandom random = new java.util.SplittableRandom(3);
    byte[] valid = Message.newQuery(Record.newRecord(Name.fromConstantString("api.example.internal."), Type.A, DClass.IN)).toWire();
    for (int i = 0; i < 20_000; i++) {
      byte[] packet = i % 2 == 0 ? new byte[random.nextInt(64)] : valid.clone();
      if (i % 2 == 0) {
        random.nextBytes(packet);
      } else {
        packet[random.nextInt(packet.length)] = (byte) random.nextInt(256);
      }
      responder.reply(packet, INSIDE, random.nextBoolean());
    }
    assertThat(answers(ask("api.example.internal.", Type.A))).containsExactly("A 10.1.0.100");
  }

  private static InetAddress address(String text) {
    try {
      return InetAddress.getByName(text);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
