package io.healthmesh.cli.probe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When each target is checked (R-PQ-5): every interval at the target's own phase, on the timers
 * given (the HTTP checks' event loops, so that an HTTP check starts where its connection lives,
 * with no thread woken for it), and at most {@code limit} checks in flight. A check that finds
 * them all taken waits in line, which its lateness shows; one still waiting when its next turn
 * comes is skipped and counted, so a prober that cannot keep up queues no more than its targets.
 */
final class Schedule {
  private static final Logger LOG = LoggerFactory.getLogger(Schedule.class);
  private static final ThreadLocal<Boolean> DRAINING = ThreadLocal.withInitial(() -> false);
  private final ScheduledExecutorService timers;
  private final int limit;
  private final String prober;
  /** Starts a check of the target, and runs the given callback once it is complete. */
  private final BiConsumer<Target, Runnable> check;
  private final Timer lateness;
  private final Counter skipped;
  // concurrent: the targets gauge reads its size from the scrape thread
  private final Map<Target, Turn> turns = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Queue<Waiting> waiting = new ConcurrentLinkedQueue<>();

  Schedule(ScheduledExecutorService timers, int limit, String prober, BiConsumer<Target, Runnable> check,
      Timer lateness, Counter skipped) {
    this.timers = timers;
    this.limit = limit;
    this.prober = prober;
    this.check = check;
    this.lateness = lateness;
    this.skipped = skipped;
  }

  Map<Target, ?> targets() {
    return turns;
  }

  /** Checks exactly these targets from now on; those checked already keep their turns. */
  synchronized void set(List<Target> targets) {
    // a set: with 100,000 targets, a list's contains made every refresh a billion comparisons
    Set<Target> wanted = new HashSet<>(targets);
    turns.entrySet().removeIf(e -> {
      boolean gone = !wanted.contains(e.getKey());
      if (gone) {
        e.getValue().future.cancel(false);
      }
      return gone;
    });
    for (Target t : targets) {
      turns.computeIfAbsent(t, this::turn);
    }
  }

  private Turn turn(Target t) {
    long interval = Math.max(1, t.spec().getCheckIntervalSec()) * 1000L;
    Turn turn = new Turn(t);
    turn.future = timers.scheduleAtFixedRate(turn, t.phaseMillis(prober, interval), interval, TimeUnit.MILLISECONDS);
    return turn;
  }

  synchronized void cancel() {
    turns.values().forEach(t -> t.future.cancel(false));
    turns.clear();
    waiting.clear();
  }

  /** One target's periodic turn. */
  private final class Turn implements Runnable {
    final Target target;
    final AtomicBoolean queued = new AtomicBoolean();
    volatile ScheduledFuture<?> future;

    Turn(Target target) {
      this.target = target;
    }

    @Override
    public void run() {
      // While a periodic task runs, its delay still counts to the run that is under way.
      ScheduledFuture<?> f = future;
      long due = System.nanoTime() + (f == null ? 0 : Math.min(0, f.getDelay(TimeUnit.NANOSECONDS)));
      if (!queued.compareAndSet(false, true)) {
        skipped.increment(); // its last turn is still waiting for a place
        return;
      }
      waiting.add(new Waiting(this, due));
      drain();
    }
  }

  private record Waiting(Turn turn, long dueNanos) {}

  /**
   * Starts waiting checks while places are free; every path that frees or queues calls it. Not
   * within itself: a check that fails as it starts frees its place at once, and the loop under
   * way takes it.
   */
  private void drain() {
    if (DRAINING.get()) {
      return;
    }
    DRAINING.set(true);
    try {
      drainNow();
    } finally {
      DRAINING.set(false);
    }
  }

  private void drainNow() {
    while (!waiting.isEmpty() && take()) {
      Waiting w = waiting.poll();
      if (w == null) { // another thread started it
        inFlight.decrementAndGet();
        return;
      }
      w.turn.queued.set(false);
      start(w);
    }
  }

  private boolean take() {
    for (int n = inFlight.get(); n < limit; n = inFlight.get()) {
      if (inFlight.compareAndSet(n, n + 1)) {
        return true;
      }
    }
    return false;
  }

  private void start(Waiting w) {
    lateness.record(Math.max(0, System.nanoTime() - w.dueNanos), TimeUnit.NANOSECONDS);
    AtomicBoolean once = new AtomicBoolean();
    Runnable done = () -> {
      if (once.compareAndSet(false, true)) {
        inFlight.decrementAndGet();
        drain();
      }
    };
    try {
      check.accept(w.turn.target, done);
    } catch (RuntimeException e) {
      // a timer whose task throws never runs again: nothing escapes
      LOG.warn("check of {}/{} not started: {}", w.turn.target.key(), w.turn.target.endpointId(), e.toString());
      done.run();
    }
  }
}
