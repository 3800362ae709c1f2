package io.healthmesh.cli.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class PublishingTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final Publishing publishing = new Publishing(Duration.ofSeconds(30), now::get);

  private void pass(int seconds) {
    now.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
  }

  @Test
  void ready_whileTheBrokerAcknowledges_orNothingIsSent_R_PQ_5() {
    for (int i = 0; i < 100; i++) {
      publishing.sent();
      pass(1);
      publishing.acked();
    }
    assertThat(publishing.stalled()).isNull();
    pass(600); // nothing to send is no stall
    assertThat(publishing.stalled()).isNull();
  }

  @Test
  void notReady_whenSendsGoUnacknowledgedForTheStallTime_andReadyAgainAtTheNextAck_R_PQ_5() {
    publishing.sent();
    publishing.acked();
    for (int i = 0; i < 29; i++) {
      pass(1);
      publishing.sent();
    }
    assertThat(publishing.stalled()).as("a broker's failover takes seconds").isNull();
    pass(2);
    publishing.sent();
    assertThat(publishing.stalled()).isEqualTo("nothing published for 31 s: the broker acknowledged no result or"
        + " heartbeat sent since");
    publishing.failed(new TimeoutException("Topic probe-results not present in metadata after 60000 ms."));
    assertThat(publishing.stalled()).endsWith("(last error: Topic probe-results not present in metadata after 60000 ms.)");
    publishing.acked();
    assertThat(publishing.stalled()).isNull();
  }
}
