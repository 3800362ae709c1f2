package io.healthmesh.streams.output;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * Commits soon after a processor forwarded a change, so that a new state is not held back for
 * the whole commit interval: with exactly-once, nothing is visible downstream before its
 * transaction commits. Probes that change nothing (nearly all of them) leave the commits at
 * {@code commit.interval.ms}.
 *
 * <p>A commit costs a few milliseconds whatever it holds, so prompt commits are made only while
 * the task is caught up: the last record it processed reached the broker less than
 * {@code healthmesh.change.commit.max.lag.ms} ago (probe-results has LogAppendTime). Behind that
 * (a storm of changes, a restart reading a backlog) the regular commits come as they would and
 * throughput keeps its long transactions; and if prompt commits ever made the task fall behind,
 * they would stop by themselves. Only when commits happen depends on the wall clock, never what
 * is computed (R-AUD-2).
 */
public final class PromptCommit {
  private final ProcessorContext<?, ?> context;
  private final long maxLagMs;
  private final LongSupplier wallClock;
  private final boolean immediate;
  private boolean pending;
  private long lastRecordTime = Long.MIN_VALUE;

  /** How soon after a change a commit comes, and how far behind the broker the task may be for it. */
  public record Timing(Duration delay, Duration maxLag) {}

  public PromptCommit(ProcessorContext<?, ?> context, Timing timing) {
    this(context, timing.delay(), timing.maxLag(), System::currentTimeMillis);
  }

  public PromptCommit(ProcessorContext<?, ?> context, Duration delay, Duration maxLag, LongSupplier wallClock) {
    this.context = context;
    this.immediate = delay.isZero();
    this.maxLagMs = maxLag.toMillis();
    this.wallClock = wallClock;
    if (!immediate) {
      context.schedule(delay, PunctuationType.WALL_CLOCK_TIME, now -> tick());
    }
  }

  /** A record with this timestamp is being processed. */
  public void processed(long recordTime) {
    lastRecordTime = recordTime;
  }

  /** A change was forwarded: committed within the delay (plus the commit itself) while the task is caught up. */
  public void changed() {
    if (immediate) {
      context.commit();
    } else {
      pending = true;
    }
  }

  private void tick() {
    if (pending && wallClock.getAsLong() - lastRecordTime <= maxLagMs) {
      pending = false;
      context.commit();
    }
  }
}
