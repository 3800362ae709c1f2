package io.healthmesh.edge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The edge with dns.udp.batch=false, as on a machine where the native library is not built. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EdgeServerNioIT extends EdgeServerContract {

  @Override
  boolean udpBatch() {
    return false;
  }

  @Test
  void answersOneDatagramPerCall_whenBatchingIsOff() {
    assertThat(server.udpBatched()).isFalse();
    assertThat(meters.get("healthmesh.dns.udp.batched").gauge().value()).isZero();
  }
}
