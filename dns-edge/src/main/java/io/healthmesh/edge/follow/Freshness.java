package io.healthmesh.edge.follow;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Since when the edge last knew that it served everything the topics held. About every second
 * the follower asks the broker for the topics' end offsets; once its positions reach them and
 * the snapshot in force holds what it read, the edge is known fresh as of the moment it asked. A
 * poll that returns nothing proves nothing (a stopped or unreachable broker returns nothing
 * too), so a broker that does not answer leaves that moment where it was and the staleness grows.
 */
final class Freshness {
  private static final long ASK_EVERY_NANOS = Duration.ofSeconds(1).toNanos();
  private static final Duration ASK_TIMEOUT = Duration.ofMillis(500);

  private volatile long freshAtMillis = System.currentTimeMillis();
  /** {@code topic-partition} -> end offset, as the broker last answered. */
  private volatile Map<String, Long> lastEnds = Map.of();
  private Map<TopicPartition, Long> asked;
  private long askedAtMillis;
  private long lastAskNanos;

  /** After a poll; {@code served}: the snapshot in force holds everything read so far. */
  void check(KafkaConsumer<?, ?> consumer, List<TopicPartition> partitions, boolean served) {
    confirm(consumer, served);
    long now = System.nanoTime();
    if (asked == null && now - lastAskNanos >= ASK_EVERY_NANOS) {
      lastAskNanos = now;
      long at = System.currentTimeMillis();
      try {
        asked = consumer.endOffsets(partitions, ASK_TIMEOUT);
        askedAtMillis = at;
        Map<String, Long> ends = new HashMap<>();
        asked.forEach((tp, end) -> ends.put(tp.topic() + "-" + tp.partition(), end));
        lastEnds = Map.copyOf(ends);
      } catch (TimeoutException e) {
        asked = null; // the broker did not answer: nothing is confirmed
      }
      confirm(consumer, served);
    }
  }

  /** {@code topic-partition} -> end offset when the broker last answered; empty before. */
  Map<String, Long> endOffsets() {
    return lastEnds;
  }

  long stalenessMillis() {
    return Math.max(0, System.currentTimeMillis() - freshAtMillis);
  }

  private void confirm(KafkaConsumer<?, ?> consumer, boolean served) {
    if (asked == null || !served) {
      return;
    }
    for (Map.Entry<TopicPartition, Long> e : asked.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return;
      }
    }
    freshAtMillis = askedAtMillis;
    asked = null;
  }
}
