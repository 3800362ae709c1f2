package io.healthmesh.cli.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.healthmesh.config.HealthCheckSpec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ScheduleTest {
  private final ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(2);
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final Timer lateness = meters.timer("lateness");
  private final Counter skipped = meters.counter("skipped");
  private final Queue<Runnable> running = new ConcurrentLinkedQueue<>();
  private final AtomicInteger started = new AtomicInteger();

  @AfterEach
  void stop() {
    timers.shutdownNow();
  }

  private static List<Target> targets(int n) {
    List<Target> targets = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      targets.add(new Target("web", "vm-" + i, "10.0.0." + i, 80,
          HealthCheckSpec.newBuilder().setCheckIntervalSec(1).build()));
    }
    return targets;
  }

  private Schedule schedule(int limit) {
    return new Schedule(timers, limit, "p", (t, done) -> {
      started.incrementAndGet();
      running.add(done);
    }, lateness, skipped);
  }

  @Test
  void checksInFlight_neverExceedTheLimit_andWaitingOnesStartAsPlacesFree_R_PQ_5() {
    Schedule schedule = schedule(3);
    schedule.set(targets(10));
    await().atMost(Duration.ofSeconds(5)).until(() -> started.get() == 3);
    assertThat(running).hasSize(3);
    // nothing completes: each target's next turn finds its last one still waiting, and is skipped
    await().atMost(Duration.ofSeconds(5)).until(() -> skipped.count() >= 7);
    assertThat(started.get()).isEqualTo(3);
    for (int i = 0; i < 10; i++) {
      Runnable done = running.poll();
      if (done != null) {
        done.run();
        done.run(); // a second call frees nothing more
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> running.size() == 3 || started.get() >= 10);
    }
    assertThat(started.get()).isGreaterThanOrEqualTo(10);
    assertThat(running.size()).isLessThanOrEqualTo(3);
    assertThat(lateness.max(java.util.concurrent.TimeUnit.MILLISECONDS)).as("the waiting ones started late")
        .isGreaterThan(0);
  }

  @Test
  void aCheckThatFailsAsItStarts_freesItsPlace_R_PQ_5() {
    Schedule schedule = new Schedule(timers, 1, "p", (t, done) -> {
      started.incrementAndGet();
      throw new IllegalStateException("no route");
    }, lateness, skipped);
    schedule.set(targets(50));
    await().atMost(Duration.ofSeconds(5)).until(() -> started.get() >= 50);
    schedule.set(targets(2));
    assertThat(schedule.targets()).hasSize(2);
    schedule.cancel();
    assertThat(schedule.targets()).isEmpty();
  }
}
