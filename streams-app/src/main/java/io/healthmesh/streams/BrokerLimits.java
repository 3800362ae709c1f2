package io.healthmesh.streams;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker settings that bound how fast a killed instance's tasks move to a survivor: the
 * group coordinator accepts session timeouts only within [min, max], and a dead producer's open
 * transaction, which holds back every read_committed reader of the partitions it wrote, is
 * aborted by a check that runs every {@code abortCheckInterval} once its timeout has passed.
 */
record BrokerLimits(Duration minSessionTimeout, Duration maxSessionTimeout, Duration maxTransactionTimeout,
    Duration abortCheckInterval, boolean known) {
  static final String MIN_SESSION = "group.min.session.timeout.ms";
  static final String MAX_SESSION = "group.max.session.timeout.ms";
  static final String MAX_TRANSACTION = "transaction.max.timeout.ms";
  static final String ABORT_CHECK = "transaction.abort.timed.out.transaction.cleanup.interval.ms";
  private static final Logger LOG = LoggerFactory.getLogger(BrokerLimits.class);

  /** A broker's defaults: what a cluster that was not tuned has, and what is assumed when its settings cannot be read. */
  static final BrokerLimits KAFKA_DEFAULTS = new BrokerLimits(Duration.ofSeconds(6), Duration.ofMinutes(30),
      Duration.ofMinutes(15), Duration.ofSeconds(10), false);

  /** The settings of one of the cluster's brokers (they are cluster-wide in practice), or the defaults when they cannot be read. */
  static BrokerLimits read(Admin admin) {
    try {
      Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
      ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(nodes.iterator().next().id()));
      Config config = admin.describeConfigs(List.of(broker)).all().get(30, TimeUnit.SECONDS).get(broker);
      return from(config);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      // Describing broker settings needs DescribeConfigs on the cluster, which a locked-down client may not have.
      LOG.warn("cannot read the brokers' group and transaction settings ({}); assuming Kafka's defaults", e.toString());
      return KAFKA_DEFAULTS;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return KAFKA_DEFAULTS;
    }
  }

  static BrokerLimits from(Config config) {
    return new BrokerLimits(millis(config, MIN_SESSION, KAFKA_DEFAULTS.minSessionTimeout),
        millis(config, MAX_SESSION, KAFKA_DEFAULTS.maxSessionTimeout),
        millis(config, MAX_TRANSACTION, KAFKA_DEFAULTS.maxTransactionTimeout),
        millis(config, ABORT_CHECK, KAFKA_DEFAULTS.abortCheckInterval), true);
  }

  static BrokerLimits of(Map<String, Long> millis) {
    return new BrokerLimits(Duration.ofMillis(millis.getOrDefault(MIN_SESSION, 6_000L)),
        Duration.ofMillis(millis.getOrDefault(MAX_SESSION, 1_800_000L)),
        Duration.ofMillis(millis.getOrDefault(MAX_TRANSACTION, 900_000L)),
        Duration.ofMillis(millis.getOrDefault(ABORT_CHECK, 10_000L)), true);
  }

  private static Duration millis(Config config, String name, Duration fallback) {
    ConfigEntry entry = config.get(name);
    if (entry == null || entry.value() == null) {
      return fallback;
    }
    try {
      return Duration.ofMillis(Long.parseLong(entry.value()));
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
