package io.healthmesh.edge.server;

import io.healthmesh.edge.answer.Responder;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;

/** The edge's UDP and TCP listeners on one address and port, in front of one responder. */
public final class EdgeServer implements AutoCloseable {
  private final UdpServer udp;
  private final TcpServer tcp;

  /**
   * Where and how the edge listens.
   *
   * @param port 0 picks a free port, the same for UDP and TCP
   * @param udpBatch move UDP datagrams in batches where the native library is built
   */
  public record Listen(String host, int port, int udpThreads, boolean udpBatch, TcpLimits tcp) {}

  private EdgeServer(UdpServer udp, TcpServer tcp) {
    this.udp = udp;
    this.tcp = tcp;
  }

  public static EdgeServer start(Listen listen, Responder responder, MeterRegistry meters) throws IOException {
    ServerMetrics metrics = new ServerMetrics(meters);
    for (int attempt = 0; ; attempt++) {
      UdpServer udp =
          new UdpServer(listen.host(), listen.port(), listen.udpThreads(), listen.udpBatch(), responder, metrics);
      try {
        EdgeServer server = new EdgeServer(udp, new TcpServer(listen.host(), udp.port(), listen.tcp(), responder,
            metrics));
        meters.gauge("healthmesh.dns.udp.batched", server, s -> s.udpBatched() ? 1 : 0);
        return server;
      } catch (IOException e) {
        udp.close();
        if (listen.port() != 0 || attempt == 5) {
          throw e; // a fixed port is taken, or free ports keep clashing
        }
      }
    }
  }

  public int port() {
    return tcp.port();
  }

  /** Whether UDP moves in batches (recvmmsg and sendmmsg) rather than one datagram per call. */
  public boolean udpBatched() {
    return udp.batched();
  }

  @Override
  public void close() {
    udp.close();
    tcp.close();
  }
}
