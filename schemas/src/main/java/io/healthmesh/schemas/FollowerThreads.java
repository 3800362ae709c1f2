package io.healthmesh.schemas;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;

/**
 * What every thread that follows topics with a consumer of its own (the edge, the xDS server, the
 * HAProxy adapter) does between a failure and its retry, and to stop.
 */
public final class FollowerThreads {
  private FollowerThreads() {}

  /**
   * A follower's consumer: no group and no commits (it reads from the beginning each time), only
   * committed records, large polls so that a burst is read in few rounds.
   */
  public static Map<String, Object> consumerProperties(Map<String, Object> kafka) {
    Map<String, Object> props = new HashMap<>(kafka);
    props.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    // The broker answers a fetch as soon as data arrives; the wait only bounds idle round trips.
    props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 200);
    return props;
  }

  /**
   * Logs why following the topics failed and returns it, for readiness to say. A broker's refusal
   * is an ERROR naming the principal and what the component needs: it is retried, since the ACL
   * may be granted a moment later, but never quietly. Anything else (a broker away) is a WARN.
   */
  public static String failed(RuntimeException e, KafkaAccess access, Map<String, ?> client, Logger log) {
    Optional<RuntimeException> refusal = KafkaRefusal.of(e);
    if (refusal.isPresent()) {
      String why = KafkaRefusal.explain(refusal.get(), access, client);
      log.error("{}; retrying (docs/secured-kafka.md)", why);
      return why;
    }
    log.warn("following the topics failed; serving what was read before and retrying: {}", e.toString());
    return e.toString();
  }

  /** Why a follower is not ready: it has not read {@code what} whole yet, and why not, when a read failed. */
  public static String notReadWhole(String what, String failure) {
    return what + " have not been read whole yet" + (failure == null ? "" : ": " + failure);
  }

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
