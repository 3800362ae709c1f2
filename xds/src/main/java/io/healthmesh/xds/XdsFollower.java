package io.healthmesh.xds;

import io.healthmesh.schemas.AvroDeserializer;
import io.healthmesh.schemas.FollowerThreads;
import io.healthmesh.schemas.KafkaAccess;
import io.healthmesh.schemas.RegistryUnavailableException;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the backend services, forwarding rules and failover decisions from the beginning (no
 * consumer group, nothing of its own in Kafka, so any number of xDS servers can run) into a
 * {@link ConsumerCatalog}, and serves what changed once it has drained what the topics hold, or
 * once the oldest change not yet served has waited {@code maxDelay}. Ready once the first
 * snapshot built from a whole read is served. When Kafka goes away it retries, and clients keep
 * what they were last sent.
 */
final class XdsFollower implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(XdsFollower.class);

  private final Map<String, Object> consumerProps;
  private final SnapshotPublisher publisher;
  /** Each followed topic bound to what in the catalog takes its records. */
  private final Map<String, Intake> intakes = new LinkedHashMap<>();
  private final long maxDelayNanos;
  private final Timer build;
  private final Timer propagation;
  private final Thread thread;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile ConsumerCatalog catalog = new ConsumerCatalog();
  private volatile boolean running = true;
  private volatile boolean ready;
  private volatile String failure;
  private final KafkaAccess access;
  private volatile long skipped;
  private volatile long rejectedEarlier;
  private volatile long lagRecords;
  private volatile int consumers;

  /** What the follower reads, whole, from the beginning (no consumer group). */
  static final List<String> TOPICS = List.of(Topics.BACKEND_SERVICES.name(), Topics.FORWARDING_RULES.name(),
      Topics.CONSUMER_FAILOVER.name());

  XdsFollower(Map<String, Object> kafkaProps, SchemaRegistryClient registry, Duration maxDelay,
      SnapshotPublisher publisher, MeterRegistry meters, KafkaAccess access) {
    this.consumerProps = FollowerThreads.consumerProperties(kafkaProps);
    this.access = access;
    this.publisher = publisher;
    intake(Topics.BACKEND_SERVICES, registry, ConsumerCatalog::backendService);
    intake(Topics.FORWARDING_RULES, registry, ConsumerCatalog::forwardingRule);
    intake(Topics.CONSUMER_FAILOVER, registry, ConsumerCatalog::failover);
    this.maxDelayNanos = maxDelay.toNanos();
    this.build = Timer.builder("healthmesh.xds.snapshot.build").description("time to rebuild what a change touched")
        .publishPercentileHistogram().register(meters);
    this.propagation = Timer.builder("healthmesh.xds.change.propagation")
        .description("from a record's timestamp (a decision's: the probe's that caused it) to its snapshot being"
            + " served to the clients")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1)).register(meters);
    this.thread = new Thread(this::follow, "xds-topic-follower");
    thread.setDaemon(true);
  }

  XdsFollower start() {
    thread.start();
    return this;
  }

  boolean ready() {
    return ready;
  }

  /** Why the last read of the topics failed (the broker away, an ACL missing); null after a good one. */
  String failure() {
    return failure;
  }

  long skipped() {
    return skipped;
  }

  long rejected() {
    return rejectedEarlier + catalog.rejected();
  }

  long lagRecords() {
    return lagRecords;
  }

  /** Consumers in the snapshot served last; the catalog itself belongs to the follower's thread. */
  int consumers() {
    return consumers;
  }

  private void follow() {
    while (running) {
      try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(),
          new ByteArrayDeserializer())) {
        consumer = c;
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : intakes.keySet()) {
          c.partitionsFor(topic, Duration.ofSeconds(30))
              .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        }
        c.assign(partitions);
        c.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = c.endOffsets(partitions);
        // Every read starts from nothing, so that a key deleted while this server was cut off
        // does not linger; clients keep the last snapshot until the read is whole.
        rejectedEarlier += catalog.rejected();
        catalog = new ConsumerCatalog();
        boolean whole = false;
        long waitingSince = 0;
        long oldestWrite = Long.MAX_VALUE;
        while (running) {
          ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(100));
          for (ConsumerRecord<byte[], byte[]> r : records) {
            apply(r);
            oldestWrite = Math.min(oldestWrite, r.timestamp());
          }
          long unread = 0;
          for (TopicPartition tp : partitions) {
            unread += c.currentLag(tp).orElse(0);
          }
          lagRecords = unread;
          failure = null;
          if (!whole) {
            if (!caughtUp(c, end)) {
              continue;
            }
            whole = true;
            Set<String> all = new HashSet<>(publisher.served());
            all.addAll(catalog.consumers());
            catalog.drainTouched();
            build.record(() -> publisher.publish(catalog, all)); // even when empty: clients learn there is nothing
            consumers = catalog.consumers().size();
            oldestWrite = Long.MAX_VALUE;
            if (!ready) {
              LOG.info("xds snapshot ready: {} consumer backend services", catalog.consumers().size());
            }
            ready = true;
            continue;
          }
          if (oldestWrite == Long.MAX_VALUE) {
            continue;
          }
          long now = System.nanoTime();
          if (waitingSince == 0) {
            waitingSince = now;
          }
          if (unread == 0 || records.isEmpty() || now - waitingSince >= maxDelayNanos) {
            serve(catalog.drainTouched(), oldestWrite);
            waitingSince = 0;
            oldestWrite = Long.MAX_VALUE;
          }
        }
      } catch (WakeupException e) {
        return;
      } catch (RuntimeException e) {
        failure = FollowerThreads.failed(e, access, consumerProps, LOG);
        running &= FollowerThreads.pause(Duration.ofSeconds(1));
      }
    }
  }

  private void serve(Set<String> touched, long oldestWrite) {
    if (touched.isEmpty()) {
      return;
    }
    build.record(() -> publisher.publish(catalog, touched));
    consumers = catalog.consumers().size();
    if (oldestWrite != Long.MAX_VALUE) {
      propagation.record(Duration.ofMillis(Math.max(0, System.currentTimeMillis() - oldestWrite)));
    }
  }

  private void apply(ConsumerRecord<byte[], byte[]> r) {
    try {
      String key = r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
      intakes.get(r.topic()).take(catalog, key, r.value());
    } catch (RegistryUnavailableException e) {
      throw e; // only when closing: the registry client waits for the registry as long as it takes
    } catch (RuntimeException e) {
      skipped++;
      LOG.warn("left out {}-{}@{}: {}", r.topic(), r.partition(), r.offset(), e.toString());
    }
  }

  /** How one topic's records reach the catalog: its key and its value, null for a tombstone. */
  @FunctionalInterface
  private interface Intake {
    void take(ConsumerCatalog catalog, String key, byte[] value);
  }

  @FunctionalInterface
  private interface Take<T> {
    void take(ConsumerCatalog catalog, String key, T value);
  }

  private <T extends SpecificRecord> void intake(Topic<String, T> topic, SchemaRegistryClient registry, Take<T> take) {
    AvroDeserializer<T> values = new AvroDeserializer<>(registry, topic.valueType());
    intakes.put(topic.name(), (catalog, key, value) ->
        take.take(catalog, key, value == null ? null : values.deserialize(topic.name(), value)));
  }

  private static boolean caughtUp(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (c.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    running = false;
    FollowerThreads.stop(thread, consumer);
  }
}
