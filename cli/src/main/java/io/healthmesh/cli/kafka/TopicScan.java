package io.healthmesh.cli.kafka;

import io.healthmesh.schemas.AvroDeserializationException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads every partition of a topic from a time (or the beginning) up to its end as of the start,
 * with committed records only and no consumer group, so an audit never disturbs the live system.
 * Progress goes to stderr when it is a terminal.
 */
public final class TopicScan {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private final Map<String, Object> client;
  private final PrintStream progress;

  public TopicScan(Map<String, Object> client, boolean showProgress) {
    this.client = Map.copyOf(client);
    this.progress = showProgress && System.console() != null ? System.err : null;
  }

  /** @return records that could not be read (and were skipped) */
  public <K, V> long read(String topic, Deserializer<K> keys, Deserializer<V> values, Instant from,
      Consumer<ConsumerRecord<K, V>> each) {
    long[] skipped = new long[1];
    readAll(List.of(topic), from, r -> {
      try {
        each.accept(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(), r.timestampType(),
            r.serializedKeySize(), r.serializedValueSize(), keys.deserialize(topic, r.key()),
            values.deserialize(topic, r.value()), r.headers(), r.leaderEpoch()));
      } catch (SerializationException e) {
        if (e instanceof AvroDeserializationException a && a.registryFailed()) {
          throw a; // the registry could not be asked: failing beats a result missing records
        }
        skipped[0]++;
      }
    });
    return skipped[0];
  }

  /**
   * What a compacted topic says now: the latest value of every key, a tombstone removing it;
   * records that cannot be read are left out and counted on {@code warnings}.
   */
  public <K, V> Map<K, V> latest(String topic, Deserializer<K> keys, Deserializer<V> values,
      Consumer<String> warnings) {
    Map<K, V> latest = new HashMap<>();
    long skipped = read(topic, keys, values, null, r -> {
      if (r.key() == null) {
        return;
      }
      if (r.value() == null) {
        latest.remove(r.key());
      } else {
        latest.put(r.key(), r.value());
      }
    });
    if (skipped > 0) {
      warnings.accept(skipped + " record(s) of " + topic + " could not be read and are left out");
    }
    return latest;
  }

  /** Every record of the topics as bytes, one partition after another in offset order, in one consumer. */
  public void readAll(Collection<String> topics, Instant from, Consumer<ConsumerRecord<byte[], byte[]>> each) {
    Map<String, Object> props = new HashMap<>(client);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // a reader never creates a topic
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : topics) {
        for (PartitionInfo p : consumer.partitionsFor(topic, TIMEOUT)) {
          partitions.add(new TopicPartition(topic, p.partition()));
        }
      }
      consumer.assign(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, TIMEOUT);
      Map<TopicPartition, Long> start = consumer.beginningOffsets(partitions, TIMEOUT);
      if (from != null) {
        Map<TopicPartition, Long> at = new HashMap<>();
        partitions.forEach(tp -> at.put(tp, from.toEpochMilli()));
        consumer.offsetsForTimes(at, TIMEOUT).forEach((tp, o) -> start.put(tp, o == null ? end.get(tp) : o.offset()));
      }
      start.forEach(consumer::seek);
      long total = partitions.stream().mapToLong(tp -> end.get(tp) - start.get(tp)).sum();
      long read = 0;
      String what = String.join(", ", topics);
      while (partitions.stream().anyMatch(tp -> consumer.position(tp, TIMEOUT) < end.get(tp))) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
            read++;
            each.accept(r);
          }
        }
        if (progress != null && total > 0) {
          progress.printf("\rreading %s: %d/%d (%d%%)", what, read, total, read * 100 / total);
        }
      }
      if (progress != null && total > 0) {
        progress.println();
      }
    }
  }
}
