package io.healthmesh.streams;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * How soon a killed instance's tasks are served by a survivor. Two clocks run at once: the dead
 * member's session must expire before its tasks are reassigned, and its open transaction must be
 * aborted before anyone reading committed records gets past what it had begun writing. So the
 * session and the transaction timeout are both set to {@code healthmesh.failure.detection.ms},
 * within what the brokers accept, and the wait is at most the larger of the session and the
 * transaction timeout plus the brokers' abort check interval. Explicit {@code streams.*}
 * settings of either timeout win.
 */
record FailureDetection(Duration session, Duration heartbeat, Duration transactionTimeout, Duration takeoverBound,
    List<String> adjustments) {
  /** A transaction stays open from the first write after a commit to the next commit; this leaves room for a slow one. */
  private static final Duration TRANSACTION_MARGIN = Duration.ofSeconds(2);
  /**
   * Members learn of a rebalance (another left or died) from a heartbeat's answer, so this is
   * also how long survivors may take to notice a stopped instance left.
   */
  private static final Duration HEARTBEAT = Duration.ofMillis(500);

  static FailureDetection of(Duration wanted, Duration commitInterval, Map<String, String> overrides, BrokerLimits broker) {
    List<String> adjustments = new ArrayList<>();
    Duration session = explicit(overrides, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
    if (session == null) {
      session = wanted;
      if (session.compareTo(broker.minSessionTimeout()) < 0) {
        session = broker.minSessionTimeout();
        adjustments.add("session timeout raised from " + wanted.toMillis() + " ms to the brokers' "
            + BrokerLimits.MIN_SESSION + " (" + session.toMillis() + " ms)");
      } else if (session.compareTo(broker.maxSessionTimeout()) > 0) {
        session = broker.maxSessionTimeout();
        adjustments.add("session timeout lowered to the brokers' " + BrokerLimits.MAX_SESSION + " (" + session.toMillis() + " ms)");
      }
    }
    Duration transaction = explicit(overrides, ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
    if (transaction == null) {
      transaction = max(session, commitInterval.plus(TRANSACTION_MARGIN));
      if (transaction.compareTo(broker.maxTransactionTimeout()) > 0) {
        transaction = broker.maxTransactionTimeout();
      }
    }
    Duration bound = max(session, transaction.plus(broker.abortCheckInterval()));
    return new FailureDetection(session, min(HEARTBEAT, session.dividedBy(3)), transaction, bound,
        List.copyOf(adjustments));
  }

  /** The consumer and producer settings. */
  void applyTo(Properties p) {
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) session.toMillis());
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) heartbeat.toMillis());
    p.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), (int) transactionTimeout.toMillis());
  }

  /** How long a record's schema may be waited for inside a transaction without it timing out. */
  Duration registryWait() {
    return transactionTimeout.dividedBy(2);
  }

  private static Duration explicit(Map<String, String> overrides, String key) {
    String value = overrides.get(key);
    if (value == null) {
      value = overrides.get(StreamsConfig.producerPrefix(key));
    }
    if (value == null) {
      value = overrides.get(StreamsConfig.consumerPrefix(key));
    }
    if (value == null) {
      value = overrides.get(StreamsConfig.mainConsumerPrefix(key));
    }
    try {
      return value == null ? null : Duration.ofMillis(Long.parseLong(value.trim()));
    } catch (NumberFormatException e) {
      return null; // Kafka Streams rejects it with its own message
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
