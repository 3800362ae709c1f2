package io.healthmesh.schemas;

import java.time.Duration;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * What every thread that follows topics with a consumer of its own (the edge, the xDS server, the
 * HAProxy adapter) does between a failure and its retry, and to stop.
 */
public final class FollowerThreads {
  private FollowerThreads() {}

  /** Waits before a retry; false when interrupted, and then the thread should end. */
  public static boolean pause(Duration wait) {
    try {
      Thread.sleep(wait.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Wakes the consumer out of its poll and waits for the thread; one that still runs, waiting on
   * something a wakeup does not end (the schema registry), is interrupted.
   */
  public static void stop(Thread thread, KafkaConsumer<?, ?> consumer) {
    if (consumer != null) {
      consumer.wakeup();
    }
    try {
      thread.join(1000);
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(4000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
