package io.healthmesh.observability;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task run every so often on a daemon thread of its own that outlives its failures. A
 * {@link ScheduledExecutorService} cancels a periodic task for good, silently, the first time it
 * throws: a timeout sweeper or a connection reaper would then stop without a word while the
 * server went on. Here a failure is logged (at most once a minute) and the next run comes as due.
 */
public final class Periodic implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Periodic.class);
  private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final ScheduledExecutorService executor;
  private final AtomicLong failures = new AtomicLong();
  private volatile long lastLogged = System.nanoTime() - LOG_EVERY_NANOS;

  private Periodic(String name, Runnable task, Duration initialDelay, Duration every) {
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
    Runnable guarded = () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        failed(name, e);
      }
    };
    // The future is not needed: close() stops the executor, and the task never throws out of it.
    var unused = executor.scheduleWithFixedDelay(guarded, initialDelay.toNanos(), every.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Runs {@code task} every {@code every} after {@code initialDelay}, on a thread called {@code name}. */
  public static Periodic start(String name, Runnable task, Duration initialDelay, Duration every) {
    return new Periodic(name, task, initialDelay, every);
  }

  /** Runs that threw. */
  public long failures() {
    return failures.get();
  }

  private void failed(String name, Throwable e) {
    long n = failures.incrementAndGet();
    long now = System.nanoTime();
    if (now - lastLogged >= LOG_EVERY_NANOS) {
      lastLogged = now;
      LOG.error("{} failed ({} failures so far); it runs again as due", name, n, e);
    }
    if (e instanceof VirtualMachineError vm) {
      throw vm;
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
