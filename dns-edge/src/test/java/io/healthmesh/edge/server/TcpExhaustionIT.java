package io.healthmesh.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.edge.answer.Fixtures;
import io.healthmesh.edge.state.Snapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * RFC 7766 6.2.3 under a slow-loris volley: 300 connections from one address, half of them idle,
 * half sending one byte every 5 s. Queries of another client (127.0.0.2) keep being answered
 * within 100 ms, with the default limits and with a per-client share that lets the attacker fill
 * every slot (then the oldest idle or slowest connection makes room).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TcpExhaustionIT {
  private static final int VOLLEY = 300;

  @Test
  void anotherClientIsAnswered_whenOneAddressOpensAVolleyOfSlowConnections() throws Exception {
    volley(TcpLimits.defaults());
  }

  @Test
  void anotherClientIsAnswered_whenTheVolleyFillsEverySlot() throws Exception {
    TcpLimits d = TcpLimits.defaults();
    volley(new TcpLimits(d.maxConnections(), VOLLEY, d.idleTimeout(), d.messageTimeout()));
  }

  @Test
  void aClientAtItsShare_getsItsOldestIdleConnectionClosed_notTheNewOneRefused() throws Exception {
    TcpLimits d = TcpLimits.defaults();
    TcpLimits limits = new TcpLimits(d.maxConnections(), 4, d.idleTimeout(), d.messageTimeout());
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    AtomicReference<Snapshot> snapshot = new AtomicReference<>(Fixtures.state().snapshot(true));
    List<Socket> idle = new ArrayList<>();
    try (EdgeServer server = EdgeServer.start(new EdgeServer.Listen("127.0.0.1", 0, 1, false, limits),
        Fixtures.responder(snapshot), meters)) {
      for (int i = 0; i < 4; i++) {
        idle.add(connectFrom("127.0.0.3", server.port()));
        Thread.sleep(20); // distinct ages
      }
      // A fifth connection of the same client is answered: its oldest idle one makes room.
      try (Socket fifth = connectFrom("127.0.0.3", server.port())) {
        assertThat(ask(fifth)).isEqualTo(Rcode.NOERROR);
      }
      idle.get(0).setSoTimeout(2000);
      assertThat(idle.get(0).getInputStream().read()).as("the oldest idle connection was closed").isEqualTo(-1);
      // When all of its connections are busy (a query begun), a new one is refused as before.
      List<Socket> busy = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        Socket s = connectFrom("127.0.0.4", server.port());
        s.getOutputStream().write(0); // the first byte of a length prefix
        s.getOutputStream().flush();
        busy.add(s);
      }
      Thread.sleep(100);
      try (Socket refused = connectFrom("127.0.0.4", server.port())) {
        refused.setSoTimeout(2000);
        assertThat(refused.getInputStream().read()).as("closed at once").isEqualTo(-1);
      }
      for (Socket s : busy) {
        s.close();
      }
      assertThat(meters.find("healthmesh.dns.tcp.closed").tag("reason", "client_evicted").counter().count()).isEqualTo(1);
      assertThat(meters.find("healthmesh.dns.tcp.closed").tag("reason", "client_limit").counter().count()).isEqualTo(1);
    } finally {
      for (Socket s : idle) {
        s.close();
      }
    }
  }

  private static Socket connectFrom(String address, int port) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(InetAddress.getByName(address), 0));
    s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
    return s;
  }

  private static int ask(Socket s) throws IOException {
    byte[] query = Message.newQuery(Record.newRecord(Name.fromConstantString("static." + Fixtures.ZONE), Type.A,
        DClass.IN)).toWire();
    s.setSoTimeout(2000);
    DataOutputStream out = new DataOutputStream(s.getOutputStream());
    out.writeShort(query.length);
    out.write(query);
    out.flush();
    DataInputStream in = new DataInputStream(s.getInputStream());
    byte[] reply = new byte[in.readUnsignedShort()];
    in.readFully(reply);
    return new Message(reply).getRcode();
  }

  private static void volley(TcpLimits limits) throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    AtomicReference<Snapshot> snapshot = new AtomicReference<>(Fixtures.state().snapshot(true));
    List<Socket> attack = new ArrayList<>();
    try (EdgeServer server = EdgeServer.start(new EdgeServer.Listen("127.0.0.1", 0, 1, false, limits),
        Fixtures.responder(snapshot), meters)) {
      askFromAnotherAddress(server.port()); // warms the code paths up: the test measures the volley, not the JIT
      for (int i = 0; i < VOLLEY; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
        attack.add(s);
      }
      Thread loris = new Thread(() -> trickle(attack.subList(VOLLEY / 2, VOLLEY)), "slow-loris");
      loris.setDaemon(true);
      loris.start();

      List<Long> millis = new ArrayList<>();
      long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (System.nanoTime() < end) {
        millis.add(askFromAnotherAddress(server.port()));
        Thread.sleep(250);
      }
      loris.interrupt();
      System.out.println("TCP queries beside the volley (" + limits + "): " + millis.size() + " answered, slowest "
          + millis.stream().mapToLong(Long::longValue).max().orElse(0) + " ms; connections closed: "
          + meters.find("healthmesh.dns.tcp.closed").counters().stream()
              .map(c -> c.getId().getTag("reason") + "=" + (long) c.count()).toList());

      assertThat(millis).hasSizeGreaterThan(40).allSatisfy(ms -> assertThat(ms).isLessThan(100));
    } finally {
      for (Socket s : attack) {
        s.close();
      }
    }
  }

  /** Sends the first byte of a length prefix, then a byte every 5 s, on each connection. */
  private static void trickle(List<Socket> sockets) {
    try {
      while (!Thread.currentThread().isInterrupted()) {
        for (Socket s : sockets) {
          try {
            OutputStream out = s.getOutputStream();
            out.write(0);
            out.flush();
          } catch (IOException closedByTheServer) {
            // expected: the server closes a connection that takes too long over one message
          }
        }
        Thread.sleep(5_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One TCP query from 127.0.0.2 on a new connection; milliseconds from connect to answer. */
  private static long askFromAnotherAddress(int port) throws IOException {
    long started = System.nanoTime();
    try (Socket s = connectFrom("127.0.0.2", port)) {
      assertThat(ask(s)).isEqualTo(Rcode.NOERROR);
    }
    return (System.nanoTime() - started) / 1_000_000;
  }
}
