package io.healthmesh.edge.follow;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * For each change read from the topics, the time from its record's timestamp to the moment a
 * snapshot serving it is in force. Health-state records carry the timestamp of the probe that
 * caused them (Kafka Streams keeps the input's), so for health this is the probe -> DNS latency.
 * Changes read before the edge first caught up are not measured: they are history, not latency.
 * A health change that says when the topology published it (its {@code healthmesh.published}
 * header) is also split into the topology's part (probe -> published) and the edge's (published
 * -> served), {@code healthmesh_edge_probe_to_answer_seconds{part}}; the split is as good as the
 * two hosts' clocks agree.
 */
final class ChangeLatency {
  /** Beyond this many changes waiting for one snapshot, the rest are not sampled. */
  private static final int MAX_PENDING = 1 << 20;

  private final Timer health;
  private final Timer config;
  private final Timer topologyPart;
  private final Timer edgePart;
  private long[] pending = new long[1024];
  /** When the topology published each pending health change; -1 when it did not say. */
  private long[] published = new long[1024];
  private int count;

  ChangeLatency(MeterRegistry meters) {
    this.health = timer(meters, "health");
    this.config = timer(meters, "config");
    this.topologyPart = part(meters, "topology");
    this.edgePart = part(meters, "edge");
  }

  private static Timer part(MeterRegistry meters, String part) {
    return Timer.builder("healthmesh.edge.probe.to.answer")
        .description("a health change's way from its probe to the first snapshot serving it, in two parts: the"
            + " topology's (probe -> published to health-state) and the edge's (published -> served)")
        .tag("part", part).publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofMinutes(5)).register(meters);
  }

  private static Timer timer(MeterRegistry meters, String change) {
    return Timer.builder("healthmesh.edge.change.propagation")
        .description("record timestamp of a change -> first snapshot serving it, by kind of change")
        .tag("change", change).publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofMinutes(5)).register(meters);
  }

  /** A change with this record timestamp now waits for the next snapshot. */
  void pending(boolean isHealth, long timestampMillis) {
    pending(isHealth, timestampMillis, -1);
  }

  /** @param publishedMillis when the topology published the health change; -1 when unknown */
  void pending(boolean isHealth, long timestampMillis, long publishedMillis) {
    int at = count;
    if (at >= MAX_PENDING) {
      return;
    }
    if (at == pending.length) {
      pending = Arrays.copyOf(pending, at * 2);
      published = Arrays.copyOf(published, at * 2);
    }
    published[at] = publishedMillis;
    // One array for both kinds: a config change is stored negative.
    pending[at] = isHealth ? timestampMillis : -timestampMillis - 1;
    count++;
  }

  /** A snapshot holding every pending change is in force. */
  void served(long nowMillis) {
    for (int i = 0; i < count; i++) {
      long ts = pending[i];
      Timer timer = ts >= 0 ? health : config;
      timer.record(Math.max(0, nowMillis - (ts >= 0 ? ts : -ts - 1)), TimeUnit.MILLISECONDS);
      long at = published[i];
      if (ts >= 0 && at >= 0) {
        topologyPart.record(Math.max(0, at - ts), TimeUnit.MILLISECONDS);
        edgePart.record(Math.max(0, nowMillis - at), TimeUnit.MILLISECONDS);
      }
    }
    count = 0;
    if (pending.length > 1 << 16) {
      pending = new long[1024];
      published = new long[1024];
    }
  }
}
