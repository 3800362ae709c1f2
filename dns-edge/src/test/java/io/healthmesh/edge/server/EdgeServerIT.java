package io.healthmesh.edge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/** The edge as it runs by default: UDP batched through the native library where it is built. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EdgeServerIT extends EdgeServerContract {

  @Override
  boolean udpBatch() {
    return true;
  }

  @Test
  void batchesUdp_whenTheNativeLibraryIsBuilt() {
    assumeThat(NativeUdp.class.getResource("/native/linux-" + System.getProperty("os.arch") + "/libhealthmesh-udp.so"))
        .as("built without gcc").isNotNull();
    assertThat(NativeUdp.unavailable()).isNull();
    assertThat(server.udpBatched()).isTrue();
    assertThat(meters.get("healthmesh.dns.udp.batched").gauge().value()).isEqualTo(1);
  }

  @Test
  void dropsAndCounts_whenAQueryIsLongerThanASlot() throws Exception {
    assumeThat(server.udpBatched()).isTrue();
    double before = settledDropped();
    try (DatagramSocket socket = new DatagramSocket()) {
      byte[] huge = new byte[BatchUdpLoop.SLOT + 100];
      socket.send(new DatagramPacket(huge, huge.length, new InetSocketAddress("127.0.0.1", server.port())));
    }
    assertThat(ask(false, "static.example.internal.", Type.A).getSection(Section.ANSWER)).hasSize(1);
    // The listener threads share the port (SO_REUSEPORT): the answer may leave from another thread
    // before the one that received the long datagram has counted it.
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(dropped()).isEqualTo(before + 1));
  }

  /** Drops counted once earlier tests' floods, still queued on a listener thread, are done. */
  private double settledDropped() throws InterruptedException {
    double last = dropped();
    while (true) {
      Thread.sleep(200);
      double now = dropped();
      if (now == last) {
        return now;
      }
      last = now;
    }
  }

  private double dropped() {
    return meters.find("healthmesh.dns.queries").tag("transport", "udp").tag("rcode", "DROPPED").counters().stream()
        .mapToDouble(c -> c.count()).sum();
  }
}
