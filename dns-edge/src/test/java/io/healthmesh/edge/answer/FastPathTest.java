package io.healthmesh.edge.answer;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.edge.routing.Regions;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.state.Snapshot;
import java.net.InetAddress;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/** The fast path answers exactly what the full path answers, byte for byte, or steps aside. */
class FastPathTest {
  private final Snapshot snapshot = Fixtures.state().snapshot(true);
  private final Responder responder = Fixtures.responder(new AtomicReference<>(snapshot));
  private final InetAddress inside = InetAddress.getLoopbackAddress();

  private static Message query(String name, int type, boolean rd, Integer ednsPayload) {
    Message q = Message.newQuery(Record.newRecord(Name.fromConstantString(name), type, DClass.IN));
    if (!rd) {
      q.getHeader().unsetFlag(Flags.RD);
    }
    if (ednsPayload != null) {
      q.addRecord(new OPTRecord(ednsPayload, 0, 0, 0), Section.ADDITIONAL);
    }
    return q;
  }

  private byte[] fast(byte[] packet, boolean tcp) {
    return FastPath.reply(packet, inside, tcp, snapshot, new RoutingEngine(Regions.builtIn()), "us-east1",
        new SplittableRandom(1), Responder.DecisionListener.NONE, null);
  }

  @Test
  void answersByteForByteLikeTheFullPath_forPlainAAndAaaaQueries() {
    List<Message> queries = List.of(
        query("static.example.internal.", Type.A, true, null),
        query("static.example.internal.", Type.A, false, 1232),
        query("StAtIc.Example.INTERNAL.", Type.A, true, 4096),
        query("static.example.internal.", Type.AAAA, true, 512),
        query("api.example.internal.", Type.A, true, null),
        query("geo.example.internal.", Type.A, true, 1232));
    for (Message q : queries) {
      byte[] packet = q.toWire();
      for (boolean tcp : List.of(false, true)) {
        byte[] fast = fast(packet, tcp);
        assertThat(fast).as(q.getQuestion() + " takes the fast path").isNotNull();
        assertThat(fast).as(q.getQuestion().toString()).isEqualTo(responder.fullReply(packet, inside, tcp));
      }
    }
  }

  @Test
  void stepsAside_forEverythingElse() {
    Message ecs = query("geo.example.internal.", Type.A, true, null);
    ecs.addRecord(new OPTRecord(1232, 0, 0, 0, List.of(new ClientSubnetOption(24, address("10.200.3.0")))),
        Section.ADDITIONAL);
    assertThat(fast(ecs.toWire(), false)).as("EDNS options").isNull();
    assertThat(fast(query("example.internal.", Type.MX, true, null).toWire(), false)).as("other types").isNull();
    assertThat(fast(query("nope.example.internal.", Type.A, true, null).toWire(), false)).as("NXDOMAIN").isNull();
    assertThat(fast(query("www.example.internal.", Type.A, true, null).toWire(), false)).as("CNAME").isNull();
    assertThat(fast(query("big.example.internal.", Type.A, true, null).toWire(), false)).as("NODATA").isNull();
    assertThat(FastPath.reply(query("static.example.internal.", Type.A, true, null).toWire(), address("192.168.1.1"),
        false, snapshot, new RoutingEngine(Regions.builtIn()), "us-east1", new SplittableRandom(1),
        Responder.DecisionListener.NONE, null)).as("client outside the private zone").isNull();
    assertThat(FastPath.reply(query("static.example.internal.", Type.A, true, null).toWire(), inside, false,
        Snapshot.NOT_READY, new RoutingEngine(Regions.builtIn()), "us-east1", new SplittableRandom(1),
        Responder.DecisionListener.NONE, null)).as("not ready").isNull();
  }

  private static InetAddress address(String text) {
    try {
      return InetAddress.getByName(text);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
