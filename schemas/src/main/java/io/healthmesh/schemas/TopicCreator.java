package io.healthmesh.schemas;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates the project's topics with their settings on any Kafka cluster; topics that exist are
 * left as they are, so it can run at every start.
 */
public final class TopicCreator {
  private final int partitions;
  private final short replicationFactor;

  /**
   * @param partitions partitions of the partitioned topics (probe results, state, transitions);
   *     configuration topics get the same count so that they stay co-partitioned with probes
   */
  public TopicCreator(int partitions, short replicationFactor) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be at least 1, got " + partitions);
    }
    if (replicationFactor < 1) {
      throw new IllegalArgumentException("replication factor must be at least 1, got " + replicationFactor);
    }
    this.partitions = partitions;
    this.replicationFactor = replicationFactor;
  }

  /** Creates the topics that are missing; returns the names it created. */
  public Set<String> createMissing(Admin admin, Collection<Topic<?, ?>> topics)
      throws InterruptedException {
    return createMissing(admin, topics, topics.stream().map(Topic::name).collect(Collectors.toSet()));
  }

  /**
   * Creates the topics that are missing, as far as the client may: on a secured cluster a client
   * sees only the topics it may describe, and may create none of them (an administrator does,
   * {@code healthctl topics create}), so a topic it may not create is left alone unless it is
   * one of {@code needed}. Returns the names it created.
   */
  public Set<String> createMissing(Admin admin, Collection<Topic<?, ?>> topics, Set<String> needed)
      throws InterruptedException {
    try {
      Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      List<NewTopic> missing = topics.stream()
          .filter(t -> !existing.contains(t.name()))
          .map(this::newTopic)
          .toList();
      Set<String> created = new TreeSet<>();
      Set<String> refused = new TreeSet<>();
      List<String> problems = new ArrayList<>();
      Throwable cause = null;
      for (Map.Entry<String, KafkaFuture<Void>> result : admin.createTopics(missing).values().entrySet()) {
        try {
          result.getValue().get(30, TimeUnit.SECONDS);
          created.add(result.getKey());
        } catch (ExecutionException e) {
          if (e.getCause() instanceof AuthorizationException) {
            if (needed.contains(result.getKey())) {
              refused.add(result.getKey());
            }
            continue; // an administrator's to create
          }
          if (!(e.getCause() instanceof TopicExistsException)) {
            problems.add(result.getKey() + ": " + e.getCause().getMessage());
            cause = cause == null ? e.getCause() : cause;
          }
        }
      }
      if (!refused.isEmpty()) {
        // Invisible to this client and not its to create: missing, or it may not describe them.
        throw new TopicAuthorizationException("Not authorized to describe or create topics: " + refused, refused);
      }
      if (!problems.isEmpty()) {
        throw new IllegalStateException("cannot create topics: " + String.join("; ", problems), cause);
      }
      return created;
    } catch (TimeoutException e) {
      throw new IllegalStateException("cannot create topics: the brokers did not answer within 30 s", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot create topics: " + e.getCause().getMessage(), e);
    }
  }

  NewTopic newTopic(Topic<?, ?> topic) {
    Map<String, String> configs = topic.compacted()
        ? Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
            // A state topic is read whole at every edge start; compact it often.
            TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "0.1",
            TopicConfig.SEGMENT_MS_CONFIG, String.valueOf(TimeUnit.HOURS.toMillis(1)))
        : Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
            TopicConfig.RETENTION_MS_CONFIG, retention(topic));
    if (topic == Topics.PROBE_RESULTS) {
      // The broker's clock, not each prober's, orders staleness (R-EP-4) and bounds clock skew;
      // it is kept in the log, so that a replay sees the same times (R-AUD-2).
      configs = new HashMap<>(configs);
      configs.put(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime");
    }
    return new NewTopic(topic.name(), partitions, replicationFactor).configs(configs);
  }

  private static String retention(Topic<?, ?> topic) {
    // Transitions are the audit trail (R-AUD-1): keep them until an operator decides otherwise.
    // Configuration rejections say which version the topology keeps in force for as long as the
    // rejected record is its key's latest (healthctl get, apply), however old it is; they are few.
    if (topic == Topics.HEALTH_TRANSITIONS || topic == Topics.CONFIG_DLQ) {
      return "-1";
    }
    return String.valueOf(TimeUnit.DAYS.toMillis(7));
  }
}
