package io.healthmesh.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.edge.answer.Fixtures;
import io.healthmesh.edge.state.Snapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * The edge over real sockets on loopback, asked by dnsjava's resolver and by dig; run once with
 * batched UDP ({@link EdgeServerIT}) and once with NIO ({@link EdgeServerNioIT}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class EdgeServerContract {
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  EdgeServer server;

  abstract boolean udpBatch();

  @BeforeAll
  void start() throws Exception {
    server = start("127.0.0.1");
  }

  EdgeServer start(String host) throws Exception {
    AtomicReference<Snapshot> snapshot = new AtomicReference<>(Fixtures.state().snapshot(true));
    return EdgeServer.start(new EdgeServer.Listen(host, 0, 2, udpBatch(),
        new TcpLimits(64, 64, Duration.ofSeconds(5), Duration.ofSeconds(2))),
        Fixtures.responder(snapshot), meters);
  }

  @AfterAll
  void stop() {
    server.close();
  }

  private SimpleResolver resolver(boolean tcp) throws Exception {
    SimpleResolver r = new SimpleResolver(new InetSocketAddress("127.0.0.1", server.port()));
    r.setTCP(tcp);
    r.setTimeout(Duration.ofSeconds(3));
    r.setIgnoreTruncation(true);
    return r;
  }

  Message ask(boolean tcp, String name, int type) throws Exception {
    return resolver(tcp).send(Message.newQuery(Record.newRecord(Name.fromConstantString(name), type, DClass.IN)));
  }

  @Test
  void answersEveryTypeOverUdpAndTcp_withDnsjavasResolver() throws Exception {
    for (boolean tcp : List.of(false, true)) {
      assertThat(ask(tcp, "static.example.internal.", Type.A).getSection(Section.ANSWER)).hasSize(1);
      assertThat(ask(tcp, "static.example.internal.", Type.AAAA).getSection(Section.ANSWER)).hasSize(1);
      assertThat(ask(tcp, "www.example.internal.", Type.A).getSection(Section.ANSWER)).hasSize(2);
      assertThat(ask(tcp, "example.internal.", Type.MX).getSection(Section.ANSWER)).hasSize(1);
      assertThat(ask(tcp, "_sip._tcp.example.internal.", Type.SRV).getSection(Section.ANSWER)).hasSize(1);
      assertThat(ask(tcp, "txt.example.internal.", Type.TXT).getSection(Section.ANSWER)).hasSize(1);
      Message nx = ask(tcp, "nope.example.internal.", Type.A);
      assertThat(nx.getRcode()).isEqualTo(Rcode.NXDOMAIN);
      assertThat(nx.getSection(Section.AUTHORITY).get(0).getType()).isEqualTo(Type.SOA);
      assertThat(ask(tcp, "example.com.", Type.A).getRcode()).isEqualTo(Rcode.REFUSED);
    }
  }

  @Test
  void truncatesOverUdp_thenAnswersWholeOverTcp() throws Exception {
    assertThat(ask(false, "big.example.internal.", Type.TXT).getHeader().getFlag(Flags.TC)).isTrue();
    Message tcp = ask(true, "big.example.internal.", Type.TXT);
    assertThat(tcp.getHeader().getFlag(Flags.TC)).isFalse();
    assertThat(tcp.getSection(Section.ANSWER)).hasSize(40);
  }

  @Test
  void answersSeveralQueriesOnOneTcpConnection_RFC7766() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      DataInputStream in = new DataInputStream(socket.getInputStream());
      List<Integer> ids = new ArrayList<>();
      for (String name : List.of("static", "txt", "www")) {
        Message q = Message.newQuery(Record.newRecord(Name.fromConstantString(name + ".example.internal."), Type.A, DClass.IN));
        ids.add(q.getHeader().getID());
        byte[] wire = q.toWire();
        out.writeShort(wire.length);
        out.write(wire);
      }
      out.flush();
      for (int id : ids) {
        byte[] reply = new byte[in.readUnsignedShort()];
        in.readFully(reply);
        assertThat(new Message(reply).getHeader().getID()).isEqualTo(id);
      }
    }
  }

  @Test
  void answersDig_includingEcsGeolocationAndTcp() throws Exception {
    assertThat(dig("static.example.internal", "A")).isEqualTo("10.0.0.5");
    assertThat(dig("geo.example.internal", "A", "+subnet=10.200.3.0/24")).isEqualTo("10.3.0.1");
    assertThat(dig("geo.example.internal", "A")).isEqualTo("10.1.0.1");
    assertThat(dig("big.example.internal", "TXT", "+tcp").lines().count()).isEqualTo(40);
    assertThat(dig("www.example.internal", "A")).isEqualTo("static.example.internal.\n10.0.0.5");
    // R-OP-1: every target down, and the record set does not fail open.
    assertThat(dig("fallback.example.internal", "A")).isEqualTo("192.0.2.53");
    assertThat(dig("closed.example.internal", "A")).as("NODATA: no address").isEmpty();
    Message closed = ask(false, "closed.example.internal.", Type.A);
    assertThat(closed.getRcode()).isEqualTo(Rcode.NOERROR);
    assertThat(closed.getSection(Section.ANSWER)).isEmpty();
    assertThat(closed.getSection(Section.AUTHORITY)).singleElement()
        .satisfies(r -> assertThat(r.getType()).isEqualTo(Type.SOA));
  }

  @Test
  void answersDig_countingUnknownPrimariesAsTheRecordSetSays_R_OP_2() throws Exception {
    assertThat(dig("wary.example.internal", "A")).as("UNKNOWN counted down: the backup").isEqualTo("10.5.0.2");
    assertThat(dig("remembered.example.internal", "A")).as("down a minute ago, as last known").isEqualTo("10.6.0.2");
  }

  @Test
  void survivesRandomAndMutatedPackets_andStillAnswers() throws Exception {
    SplittableRandom random = new SplittableRandom(99);
    byte[] valid = Message.newQuery(Record.newRecord(Name.fromConstantString("api.example.internal."), Type.A, DClass.IN)).toWire();
    List<byte[]> bases = List.of(valid, twoOpts(), chaos(), badVers());
    InetSocketAddress target = new InetSocketAddress("127.0.0.1", server.port());
    try (DatagramSocket socket = new DatagramSocket()) {
      for (int i = 0; i < 100_000; i++) {
        byte[] packet = mutate(bases.get(i / 2 % bases.size()), random, i);
        socket.send(new DatagramPacket(packet, packet.length, target));
      }
    }
    for (int i = 0; i < 300; i++) {
      try (Socket socket = new Socket("127.0.0.1", server.port())) {
        socket.setSoTimeout(2000);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        byte[] packet = mutate(valid, random, i);
        out.writeShort(random.nextInt(3) == 0 ? random.nextInt(65536) : packet.length); // sometimes a lying length
        out.write(packet);
        out.flush();
      }
    }
    Message answer = ask(false, "api.example.internal.", Type.A);
    assertThat(answer.getSection(Section.ANSWER).get(0).rdataToString()).isEqualTo("10.1.0.100");
    assertThat(ask(true, "static.example.internal.", Type.A).getRcode()).isEqualTo(Rcode.NOERROR);
    assertThat(meters.find("healthmesh.dns.listener.failures").counters()).as("registered before any failure")
        .extracting(c -> c.getId().getTag("where")).containsExactlyInAnyOrder("udp", "tcp");
    assertThat(meters.find("healthmesh.dns.listener.failures").counters()).allSatisfy(c ->
        assertThat(c.count()).as(c.getId().toString()).isZero());
  }

  @Test
  void answersEveryClientOfABurst_whenManyQueriesArriveAtOnce() throws Exception {
    InetSocketAddress target = new InetSocketAddress("127.0.0.1", server.port());
    List<DatagramSocket> clients = new ArrayList<>();
    try {
      for (int c = 0; c < 8; c++) {
        DatagramSocket socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
        socket.setSoTimeout(3000);
        socket.setReceiveBufferSize(1 << 20);
        clients.add(socket);
      }
      // 8 clients x 24 queries sent before any answer is read: the server sees batches from mixed clients.
      for (int q = 0; q < 24; q++) {
        for (int c = 0; c < clients.size(); c++) {
          Message query = Message.newQuery(Record.newRecord(Name.fromConstantString(q % 2 == 0 ? "static.example.internal."
              : "txt.example.internal."), q % 2 == 0 ? Type.A : Type.TXT, DClass.IN));
          query.getHeader().setID(c * 1000 + q);
          byte[] wire = query.toWire();
          clients.get(c).send(new DatagramPacket(wire, wire.length, target));
        }
      }
      for (int c = 0; c < clients.size(); c++) {
        java.util.Set<Integer> ids = new java.util.TreeSet<>();
        for (int q = 0; q < 24; q++) {
          DatagramPacket packet = new DatagramPacket(new byte[1232], 1232);
          clients.get(c).receive(packet);
          Message reply = new Message(java.util.Arrays.copyOf(packet.getData(), packet.getLength()));
          int id = reply.getHeader().getID();
          assertThat(reply.getQuestion().getType()).isEqualTo(id % 2 == 0 ? Type.A : Type.TXT);
          assertThat(reply.getSection(Section.ANSWER)).hasSize(1);
          ids.add(id);
        }
        int client = c;
        assertThat(ids).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 24).map(q -> client * 1000 + q)
            .boxed().toList());
      }
    } finally {
      clients.forEach(DatagramSocket::close);
    }
  }

  @Test
  void recordsOneLatencyPerQuery_whenAnsweringOverUdp() throws Exception {
    for (int i = 0; i < 20; i++) {
      ask(false, "static.example.internal.", Type.A);
    }
    // Both meters are updated after the answer is sent: wait for the last one to land.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    double counted;
    long timed;
    do {
      counted = meters.find("healthmesh.dns.queries").tag("transport", "udp").counters().stream()
          .mapToDouble(c -> c.count()).sum();
      timed = meters.get("healthmesh.dns.query.duration").tag("transport", "udp").timer().count();
    } while (counted != timed && System.nanoTime() < deadline);
    assertThat(counted).isGreaterThanOrEqualTo(20);
    assertThat(timed).isEqualTo((long) counted);
  }

  @Test
  void answersOverIpv6_whenBoundToTheIpv6Loopback() throws Exception {
    try (EdgeServer v6 = start("::1")) {
      SimpleResolver r = new SimpleResolver(new InetSocketAddress("::1", v6.port()));
      r.setTimeout(Duration.ofSeconds(3));
      Message answer = r.send(Message.newQuery(Record.newRecord(Name.fromConstantString("static.example.internal."), Type.A,
          DClass.IN)));
      assertThat(answer.getSection(Section.ANSWER).get(0).rdataToString()).isEqualTo("10.0.0.5");
      assertThat(v6.udpBatched()).isEqualTo(server.udpBatched());
    }
  }

  @Test
  void answersByRfc6891AndCountsBadversAsSuch_overUdp() throws Exception {
    InetSocketAddress target = new InetSocketAddress("127.0.0.1", server.port());
    try (DatagramSocket socket = new DatagramSocket()) {
      socket.setSoTimeout(2000);
      for (byte[] query : List.of(twoOpts(), chaos(), badVers())) {
        socket.send(new DatagramPacket(query, query.length, target));
      }
      List<Integer> rcodes = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        DatagramPacket reply = new DatagramPacket(new byte[1500], 1500);
        socket.receive(reply);
        rcodes.add(new Message(java.util.Arrays.copyOf(reply.getData(), reply.getLength())).getRcode());
      }
      assertThat(rcodes).containsExactlyInAnyOrder(Rcode.FORMERR, Rcode.REFUSED, Rcode.BADVERS);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (meters.find("healthmesh.dns.queries").tag("rcode", "BADVERS").counter() == null
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(meters.get("healthmesh.dns.queries").tag("rcode", "BADVERS").counter().count()).isPositive();
  }

  private static byte[] twoOpts() {
    Message m = Message.newQuery(Record.newRecord(Name.fromConstantString("static.example.internal."), Type.A, DClass.IN));
    m.addRecord(new org.xbill.DNS.OPTRecord(1232, 0, 0, 0), Section.ADDITIONAL);
    m.addRecord(new org.xbill.DNS.OPTRecord(1232, 0, 0, 0), Section.ADDITIONAL);
    return m.toWire();
  }

  private static byte[] chaos() {
    return Message.newQuery(Record.newRecord(Name.fromConstantString("version.bind."), Type.TXT, DClass.CH)).toWire();
  }

  private static byte[] badVers() {
    Message m = Message.newQuery(Record.newRecord(Name.fromConstantString("static.example.internal."), Type.A, DClass.IN));
    m.addRecord(new org.xbill.DNS.OPTRecord(1232, 0, 1, 0), Section.ADDITIONAL);
    return m.toWire();
  }

  private static byte[] mutate(byte[] valid, SplittableRandom random, int i) {
    if (i % 2 == 0) {
      byte[] packet = new byte[random.nextInt(1, 200)];
      random.nextBytes(packet);
      return packet;
    }
    byte[] packet = valid.clone();
    for (int k = random.nextInt(1, 4); k > 0; k--) {
      packet[random.nextInt(packet.length)] = (byte) random.nextInt(256);
    }
    return packet;
  }

  private String dig(String name, String type, String... options) throws Exception {
    List<String> command = new ArrayList<>(List.of("dig", "@127.0.0.1", "-p", String.valueOf(server.port()), name, type,
        "+short", "+time=2", "+tries=1"));
    command.addAll(List.of(options));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

}
