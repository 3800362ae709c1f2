package io.healthmesh.edge.server;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;

/** The edge's UDP and TCP listeners on one address and port, in front of one responder. */
public final class EdgeServer implements AutoCloseable {
  private final UdpServer udp;
  private final TcpServer tcp;

  private EdgeServer(UdpServer udp, TcpServer tcp) {
    this.udp = udp;
    this.tcp = tcp;
  }

  /** Port 0 picks a free port, the same for UDP and TCP. */
  public static EdgeServer start(String host, int port, int udpThreads, int maxTcpConnections, Duration tcpIdleTimeout,
      Responder responder, MeterRegistry meters) throws IOException {
    ServerMetrics metrics = new ServerMetrics(meters);
    for (int attempt = 0; ; attempt++) {
      UdpServer udp = new UdpServer(host, port, udpThreads, responder, metrics);
      try {
        return new EdgeServer(udp, new TcpServer(host, udp.port(), maxTcpConnections, tcpIdleTimeout, responder, metrics));
      } catch (IOException e) {
        udp.close();
        if (port != 0 || attempt == 5) {
          throw e; // a fixed port is taken, or free ports keep clashing
        }
      }
    }
  }

  public int port() {
    return tcp.port();
  }

  @Override
  public void close() {
    udp.close();
    tcp.close();
  }
}
