package io.healthmesh.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class PeriodicTest {
  @Test
  @Timeout(10)
  void keepsRunning_whenARunThrows() throws InterruptedException {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch afterFailures = new CountDownLatch(1);
    try (Periodic periodic = Periodic.start("test-periodic", () -> {
      if (runs.incrementAndGet() <= 3) {
        throw new IllegalStateException("run " + runs.get() + " fails");
      }
      afterFailures.countDown();
    }, Duration.ZERO, Duration.ofMillis(5))) {
      assertThat(afterFailures.await(5, TimeUnit.SECONDS)).as("a run after three that threw").isTrue();
      assertThat(periodic.failures()).isEqualTo(3);
    }
  }

  @Test
  @Timeout(10)
  void stopsRunning_whenClosed() throws InterruptedException {
    AtomicInteger runs = new AtomicInteger();
    Periodic periodic = Periodic.start("test-periodic", runs::incrementAndGet, Duration.ZERO, Duration.ofMillis(5));
    while (runs.get() < 2) {
      Thread.sleep(5);
    }
    periodic.close();
    Thread.sleep(50);
    int after = runs.get();
    Thread.sleep(100);
    assertThat(runs.get()).isEqualTo(after);
  }
}
