package io.healthmesh.schemas;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.avro.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks again, with back-off, while the registry is unavailable, so that an outage is waited out
 * instead of turning good records into dead letters. Answers that are about the data (not found,
 * incompatible, invalid) pass through at once. After {@code maxWait} without an answer a call
 * fails with {@link RegistryUnavailableException}; {@code null} waits as long as it takes.
 */
public final class RetryingRegistryClient implements SchemaRegistryClient {
  private static final Logger LOG = LoggerFactory.getLogger(RetryingRegistryClient.class);
  private static final long FIRST_PAUSE_MS = 100;
  private static final long MAX_PAUSE_MS = 2_000;

  private final SchemaRegistryClient delegate;
  private final Duration maxWait;
  private final AtomicLong failedCalls = new AtomicLong();
  private final AtomicInteger waiting = new AtomicInteger();

  public RetryingRegistryClient(SchemaRegistryClient delegate, Duration maxWait) {
    this.delegate = delegate;
    this.maxWait = maxWait;
  }

  /** Exports {@code healthmesh_registry_unavailable_total} and {@code healthmesh_registry_waiting}. */
  public RetryingRegistryClient bindTo(MeterRegistry meters) {
    FunctionCounter.builder("healthmesh.registry.unavailable", failedCalls, AtomicLong::get)
        .description("calls to the schema registry that found it unavailable and were retried").register(meters);
    Gauge.builder("healthmesh.registry.waiting", waiting, AtomicInteger::get)
        .description("threads waiting for the schema registry to come back").register(meters);
    return this;
  }

  @Override
  public int register(String subject, Schema schema) {
    return retry("register " + subject, () -> delegate.register(subject, schema));
  }

  @Override
  public int idOf(String subject, Schema schema) {
    return retry("look up " + subject, () -> delegate.idOf(subject, schema));
  }

  @Override
  public Schema byId(int id) {
    return retry("read schema id " + id, () -> delegate.byId(id));
  }

  @Override
  public SchemaVersion latest(String subject) {
    return retry("read the latest " + subject, () -> delegate.latest(subject));
  }

  @Override
  public boolean isCompatible(String subject, Schema schema) {
    return retry("check " + subject, () -> delegate.isCompatible(subject, schema));
  }

  @Override
  public String compatibility(String subject) {
    return retry("read compatibility", () -> delegate.compatibility(subject));
  }

  @Override
  public void setCompatibility(String subject, String level) {
    retry("set compatibility", () -> {
      delegate.setCompatibility(subject, level);
      return null;
    });
  }

  private <T> T retry(String what, Supplier<T> call) {
    long started = System.nanoTime();
    long pause = FIRST_PAUSE_MS;
    boolean counted = false;
    try {
      while (true) {
        try {
          return call.get();
        } catch (RegistryException e) {
          if (!e.isTransient()) {
            throw e;
          }
          failedCalls.incrementAndGet();
          if (!counted) {
            counted = true;
            waiting.incrementAndGet();
            LOG.warn("schema registry unavailable to {}, retrying: {}", what, e.getMessage());
          }
          long waited = System.nanoTime() - started;
          if (maxWait != null && waited >= maxWait.toNanos()) {
            throw new RegistryUnavailableException("schema registry unavailable for "
                + Duration.ofNanos(waited).toSeconds() + " s to " + what + ": " + e.getMessage(), e);
          }
          sleep(maxWait == null ? pause : Math.min(pause, Math.max(1, (maxWait.toNanos() - waited) / 1_000_000)), what, e);
          pause = Math.min(MAX_PAUSE_MS, pause * 2);
        }
      }
    } finally {
      if (counted) {
        waiting.decrementAndGet();
      }
    }
  }

  private static void sleep(long millis, String what, RegistryException cause) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RegistryUnavailableException("interrupted while waiting for the schema registry to " + what, cause);
    }
  }
}
