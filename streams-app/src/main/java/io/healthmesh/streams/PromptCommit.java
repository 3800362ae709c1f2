package io.healthmesh.streams;

import java.time.Duration;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * Commits soon after a processor forwarded a change, so that a new state is not held back for
 * the whole commit interval: with exactly-once, nothing is visible downstream before its
 * transaction commits. Probes that change nothing (nearly all of them) leave the commits at
 * {@code commit.interval.ms}. A commit costs a few milliseconds whatever it holds, so prompt
 * commits are made only while the input is light (at most {@code healthmesh.change.commit.max.rate}
 * records/s over the last tick): under heavy input the regular commits come as they would, and
 * throughput keeps its long transactions. Only when commits happen depends on the wall clock,
 * never what is computed (R-AUD-2).
 */
final class PromptCommit {
  private final ProcessorContext<?, ?> context;
  private final long maxPerTick;
  private final boolean immediate;
  private boolean pending;
  private long processed;

  PromptCommit(ProcessorContext<?, ?> context, Duration delay, int maxRate) {
    this.context = context;
    this.immediate = delay.isZero();
    this.maxPerTick = Math.max(1, maxRate * Math.max(1, delay.toMillis()) / 1000);
    if (!immediate) {
      context.schedule(delay, PunctuationType.WALL_CLOCK_TIME, now -> tick());
    }
  }

  /** One input record was processed. */
  void processed() {
    processed++;
  }

  /** A change was forwarded; it is committed within the delay (plus the commit itself) while the input is light. */
  void changed() {
    if (immediate) {
      context.commit();
    } else {
      pending = true;
    }
  }

  private void tick() {
    if (pending && processed <= maxPerTick) {
      pending = false;
      context.commit();
    }
    processed = 0;
  }
}
