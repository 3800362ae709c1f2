package io.healthmesh.edge.forward;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;

/**
 * A name server on loopback for unit tests, over real UDP and TCP on one port: answers every A
 * query with {@code answer}, or stays silent, or truncates over UDP so that only TCP answers.
 * The integration tests use NSD and unbound instead.
 */
public final class StubUpstream implements AutoCloseable {
  public enum Mode { ANSWER, SILENT, TRUNCATE_UDP }

  private final DatagramSocket udp;
  private final ServerSocket tcp;
  private final String answer;
  private volatile Mode mode;
  public final AtomicInteger udpQueries = new AtomicInteger();
  public final AtomicInteger tcpQueries = new AtomicInteger();

  public StubUpstream(String answer, Mode mode) throws IOException {
    this.answer = answer;
    this.mode = mode;
    // UDP and TCP share the ephemeral range: the port the kernel gave the UDP socket may be held by
    // some TCP connection (a Kafka client's, in a busy build). Then try another.
    DatagramSocket u;
    ServerSocket t;
    for (int attempt = 1; ; attempt++) {
      u = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      try {
        t = new ServerSocket(u.getLocalPort(), 50, InetAddress.getLoopbackAddress());
        break;
      } catch (BindException e) {
        u.close();
        if (attempt == 20) {
          throw e;
        }
      }
    }
    this.udp = u;
    this.tcp = t;
    daemon(this::serveUdp);
    daemon(this::serveTcp);
  }

  private static void daemon(Runnable r) {
    Thread t = new Thread(r, "stub-upstream");
    t.setDaemon(true);
    t.start();
  }

  public void mode(Mode mode) {
    this.mode = mode;
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), udp.getLocalPort());
  }

  private byte[] reply(byte[] query, boolean overTcp) throws IOException {
    Message q = new Message(query);
    Message r = new Message(q.getHeader().getID());
    r.getHeader().setFlag(Flags.QR);
    r.getHeader().setFlag(Flags.RA);
    r.addRecord(q.getQuestion(), Section.QUESTION);
    if (mode == Mode.TRUNCATE_UDP && !overTcp) {
      r.getHeader().setFlag(Flags.TC);
    } else {
      Record a = new ARecord(q.getQuestion().getName(), DClass.IN, 60, InetAddress.getByName(answer));
      r.addRecord(a, Section.ANSWER);
    }
    return r.toWire();
  }

  private void serveUdp() {
    byte[] buffer = new byte[65535];
    while (!udp.isClosed()) {
      try {
        DatagramPacket p = new DatagramPacket(buffer, buffer.length);
        udp.receive(p);
        udpQueries.incrementAndGet();
        if (mode == Mode.SILENT) {
          continue;
        }
        byte[] query = java.util.Arrays.copyOf(p.getData(), p.getLength());
        byte[] r = reply(query, false);
        udp.send(new DatagramPacket(r, r.length, p.getSocketAddress()));
      } catch (IOException e) {
        // closed, or a query the stub cannot read
      }
    }
  }

  private void serveTcp() {
    while (!tcp.isClosed()) {
      try (Socket s = tcp.accept()) {
        tcpQueries.incrementAndGet();
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] query = new byte[in.readUnsignedShort()];
        in.readFully(query);
        byte[] r = reply(query, true);
        OutputStream out = s.getOutputStream();
        out.write(new byte[] {(byte) (r.length >>> 8), (byte) r.length});
        out.write(r);
        out.flush();
      } catch (IOException e) {
        // closed
      }
    }
  }

  @Override
  public void close() throws IOException {
    udp.close();
    tcp.close();
  }
}
