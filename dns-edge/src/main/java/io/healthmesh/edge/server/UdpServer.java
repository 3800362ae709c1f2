package io.healthmesh.edge.server;

import io.healthmesh.edge.answer.Responder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * UDP listener: one socket per thread on the same port (SO_REUSEPORT), so receiving takes no
 * lock. Batched through {@link NativeUdp} where that library is built, else one datagram per call.
 */
final class UdpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UdpServer.class);
  private final List<UdpLoop> loops = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final boolean batched;

  UdpServer(String host, int port, int threadCount, boolean batch, Responder responder, ServerMetrics metrics)
      throws IOException {
    ServerMetrics.Transport queries = metrics.transport("udp");
    String unavailable = batch ? NativeUdp.unavailable() : "dns.udp.batch is false";
    this.batched = unavailable == null;
    if (batch && !batched) {
      LOG.warn("UDP answered one datagram per system call: {}", unavailable);
    }
    InetAddress address = InetAddress.getByName(host);
    int count = batched || NioUdpLoop.canSharePort() ? threadCount : 1;
    try {
      for (int i = 0, bound = port; i < count; i++, bound = loops.get(0).port()) {
        loops.add(batched ? new BatchUdpLoop(address, bound, responder, metrics, queries)
            : new NioUdpLoop(new InetSocketAddress(address, bound), count > 1, responder, metrics, queries));
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
    for (UdpLoop loop : loops) {
      Thread t = new Thread(loop, "dns-udp-" + threads.size());
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  int port() throws IOException {
    return loops.get(0).port();
  }

  /** Whether datagrams move in batches (recvmmsg and sendmmsg). */
  boolean batched() {
    return batched;
  }

  @Override
  public void close() {
    loops.forEach(UdpLoop::stop);
    for (int i = 0; i < loops.size(); i++) {
      Thread t = i < threads.size() ? threads.get(i) : null;
      try {
        if (t != null) {
          t.join(2_000);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (t != null && t.isAlive()) {
        // Closing a socket a thread still reads could hand its number to the next socket opened.
        LOG.warn("{} did not stop; its socket is left open", t.getName());
      } else {
        loops.get(i).release();
      }
    }
  }
}
