package io.healthmesh.edge.follow;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ChangeLatencyTest {
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final ChangeLatency latency = new ChangeLatency(meters);

  @Test
  void splitsProbeToAnswer_intoTheTopologysPartAndTheEdgesPart() {
    latency.pending(true, 1_000, 1_300); // probe at 1.0 s, published at 1.3 s
    latency.pending(true, 2_000, -1); // published by a topology that does not say when
    latency.pending(false, 1_200); // a configuration change
    latency.served(2_500);

    assertThat(millis("healthmesh.edge.change.propagation", "change", "health")).isEqualTo(1_500 + 500);
    assertThat(millis("healthmesh.edge.change.propagation", "change", "config")).isEqualTo(1_300);
    assertThat(millis("healthmesh.edge.probe.to.answer", "part", "topology")).isEqualTo(300);
    assertThat(millis("healthmesh.edge.probe.to.answer", "part", "edge")).isEqualTo(1_200);
    assertThat(meters.get("healthmesh.edge.probe.to.answer").tag("part", "edge").timer().count()).isEqualTo(1);
  }

  private double millis(String name, String tag, String value) {
    return meters.get(name).tag(tag, value).timer().totalTime(TimeUnit.MILLISECONDS);
  }
}
