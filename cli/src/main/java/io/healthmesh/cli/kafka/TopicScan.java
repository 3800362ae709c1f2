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
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
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
 *
 * <p>One read at a time. The reads of one scan share a consumer, with its connections and
 * metadata: a narrow command reads two or three small topics, and a consumer's start (its first
 * connection and metadata) cost more than reading them (docs/benchmarks.md). Close it after.
 */
public final class TopicScan implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  /**
   * Consumers reading side by side: twice the cores, so that partitions that do not split evenly
   * over the cores (a topic's 3 over 2 cores) still keep every core busy to the end; one consumer
   * per group of partitions, and each decodes what it fetches. Reading 100,000 record sets (3
   * partitions, 2 cores) took about a quarter less than with one consumer per core (docs/benchmarks.md).
   */
  private static final int CONSUMERS = 2 * Math.max(1, Runtime.getRuntime().availableProcessors());
  /** Records a single consumer reads faster than several would, counting their start. */
  private static final long SMALL = 20_000;
  private final Map<String, Object> client;
  private final PrintStream progress;
  private KafkaConsumer<byte[], byte[]> shared;

  public TopicScan(Map<String, Object> client, boolean showProgress) {
    this.client = Map.copyOf(client);
    this.progress = showProgress && System.console() != null ? System.err : null;
  }

  /**
   * Rethrows a record's decoding failure when the registry could not be asked: failing beats a
   * result missing records. Any other failure is the record's, which callers skip and count.
   */
  public static void failIfRegistryFailed(SerializationException e) {
    if (e instanceof AvroDeserializationException a && a.registryFailed()) {
      throw a;
    }
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
        failIfRegistryFailed(e);
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
    return latest(topic, keys, values, k -> true, warnings);
  }

  /**
   * As {@link #latest(String, Deserializer, Deserializer, Consumer)}, of the keys {@code wanted}
   * only. Partitions are fetched side by side, a key's records are kept as bytes until its last
   * one is known, and only the values of wanted keys that are still there are decoded: a
   * question about a few entities decodes a few values.
   */
  public <K, V> Map<K, V> latest(String topic, Deserializer<K> keys, Deserializer<V> values, Predicate<K> wanted,
      Consumer<String> warnings) {
    return latest(topic, keys, values, k -> true, wanted, warnings);
  }

  /**
   * As {@link #latest(String, Deserializer, Deserializer, Predicate, Consumer)}, where a key whose
   * bytes {@code keyBytes} refuses is not even decoded; it must accept every wanted key's bytes.
   */
  public <K, V> Map<K, V> latest(String topic, Deserializer<K> keys, Deserializer<V> values,
      Predicate<byte[]> keyBytes, Predicate<K> wanted, Consumer<String> warnings) {
    Map<KeyBytes, ConsumerRecord<byte[], byte[]>> last = new HashMap<>();
    readPartitions(List.of(topic), r -> r, r -> keepLatest(last, r));
    return decodeLatest(topic, last.values(), keys, values, keyBytes, wanted, warnings);
  }

  /**
   * The records {@link #keepLatest} kept, decoded side by side: only keys whose bytes {@code
   * keyBytes} accepts and that {@code wanted} accepts; a record that cannot be decoded is left out
   * and counted on {@code warnings}, unless the registry could not be asked (then it fails).
   */
  public static <K, V> Map<K, V> decodeLatest(String topic, Collection<ConsumerRecord<byte[], byte[]>> last,
      Deserializer<K> keys, Deserializer<V> values, Predicate<byte[]> keyBytes, Predicate<K> wanted,
      Consumer<String> warnings) {
    AtomicLong skipped = new AtomicLong();
    List<Map.Entry<K, V>> decoded = last.parallelStream().filter(r -> keyBytes.test(r.key())).map(r -> {
      try {
        K key = keys.deserialize(topic, r.key());
        return wanted.test(key) ? Map.entry(key, values.deserialize(topic, r.value())) : null;
      } catch (SerializationException e) {
        failIfRegistryFailed(e);
        skipped.incrementAndGet();
        return null;
      }
    }).filter(Objects::nonNull).toList();
    Map<K, V> latest = new HashMap<>();
    decoded.forEach(e -> latest.put(e.getKey(), e.getValue()));
    if (skipped.get() > 0) {
      warnings.accept(skipped.get() + " record(s) of " + topic + " could not be read and are left out");
    }
    return latest;
  }

  /**
   * A compacted topic's reading, one record at a time: {@code last} keeps each key's latest record,
   * and a tombstone removes the key; a record without a key is no one's.
   */
  public static void keepLatest(Map<KeyBytes, ConsumerRecord<byte[], byte[]>> last, ConsumerRecord<byte[], byte[]> r) {
    if (r.key() == null) {
      return;
    }
    if (r.value() == null) {
      last.remove(new KeyBytes(r.key()));
    } else {
      last.put(new KeyBytes(r.key()), r);
    }
  }

  /**
   * Every record of the topics up to their end as of the start, decoded by {@code decode} (null
   * leaves a record out); {@code each} sees one record at a time, each partition's in offset
   * order, and is not called after this returns. A large read is fetched by one consumer per group
   * of partitions side by side (a consumer has one fetch in flight), and decoded in its partition's
   * thread.
   */
  public <T> void readPartitions(Collection<String> topics, Function<ConsumerRecord<byte[], byte[]>, T> decode,
      Consumer<T> each) {
    readPartitions(topics, KeyPartition.ALL, decode, each);
  }

  /** As {@link #readPartitions(Collection, Function, Consumer)}, of the partitions {@code which} names. */
  public <T> void readPartitions(Collection<String> topics, KeyPartition which,
      Function<ConsumerRecord<byte[], byte[]>, T> decode, Consumer<T> each) {
    List<List<TopicPartition>> groups;
    Map<TopicPartition, Long> start;
    Map<TopicPartition, Long> end;
    KafkaConsumer<byte[], byte[]> consumer = shared();
    List<TopicPartition> partitions = partitions(consumer, topics, which);
    end = consumer.endOffsets(partitions, TIMEOUT);
    start = consumer.beginningOffsets(partitions, TIMEOUT);
    List<TopicPartition> filled = partitions.stream().filter(tp -> end.get(tp) > start.get(tp)).toList();
    if (filled.stream().mapToLong(tp -> end.get(tp) - start.get(tp)).sum() < SMALL) {
      // another consumer would cost more than it saves
      fetch(consumer, filled, start, end, decode, each, new Object());
      return;
    }
    groups = groups(filled);
    ExecutorService threads = Executors.newFixedThreadPool(groups.size(), r -> {
      Thread t = new Thread(r, "topic-scan");
      t.setDaemon(true);
      return t;
    });
    Object turn = new Object();
    try {
      List<Future<?>> running = new ArrayList<>();
      // the shared consumer reads the first group, while this thread waits
      running.add(threads.submit(() -> {
        fetch(consumer, groups.get(0), start, end, decode, each, turn);
        return null;
      }));
      for (List<TopicPartition> group : groups.subList(1, groups.size())) {
        running.add(threads.submit(() -> {
          try (KafkaConsumer<byte[], byte[]> own = consumer()) {
            fetch(own, group, start, end, decode, each, turn);
          }
          return null;
        }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading " + topics, e);
    } finally {
      threads.shutdownNow();
      awaitStop(threads); // the shared consumer is free again only when its reader has stopped
    }
  }

  private static void awaitStop(ExecutorService threads) {
    try {
      // a reader that does not stop in time leaves close() to say so; this must not hide why we stop
      threads.awaitTermination(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Reads {@code partitions} from {@code start} to {@code end}, handing each poll's records to {@code each} under {@code turn}. */
  private static <T> void fetch(KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> partitions,
      Map<TopicPartition, Long> start, Map<TopicPartition, Long> end, Function<ConsumerRecord<byte[], byte[]>, T> decode,
      Consumer<T> each, Object turn) {
    if (partitions.isEmpty()) {
      return;
    }
    consumer.assign(partitions);
    try {
      partitions.forEach(tp -> consumer.seek(tp, start.get(tp)));
      while (partitions.stream().anyMatch(tp -> consumer.position(tp, TIMEOUT) < end.get(tp))) {
        List<T> batch = new ArrayList<>();
        ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(200));
        for (TopicPartition tp : polled.partitions()) {
          long last = end.get(tp);
          for (ConsumerRecord<byte[], byte[]> r : polled.records(tp)) {
            T decoded = r.offset() < last ? decode.apply(r) : null;
            if (decoded != null) {
              batch.add(decoded);
            }
          }
        }
        synchronized (turn) {
          batch.forEach(each);
        }
      }
    } finally {
      consumer.unsubscribe(); // a shared consumer would go on fetching past the ends
    }
  }

  /** Partitions in up to {@link #CONSUMERS} groups of about equal size, one consumer each. */
  private static List<List<TopicPartition>> groups(List<TopicPartition> partitions) {
    int n = Math.min(CONSUMERS, partitions.size());
    List<List<TopicPartition>> groups = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      groups.add(new ArrayList<>());
    }
    for (int i = 0; i < partitions.size(); i++) {
      groups.get(i % n).add(partitions.get(i));
    }
    return groups;
  }

  @Override
  public void close() {
    if (shared != null) {
      shared.close();
      shared = null;
    }
  }

  private KafkaConsumer<byte[], byte[]> shared() {
    if (shared == null) {
      shared = consumer();
    }
    return shared;
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    Map<String, Object> props = new HashMap<>(client);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // Records a reader has fetched but not yet handed on are alive when the young generation is
    // collected, and are copied: polls of 1,000 records and fetches of 1 MB per partition keep few
    // of them. A read of 500,000 records (a config topic before compaction) kept 200 MB instead of
    // 330 MB, and paused half as long (docs/benchmarks.md, "Reading past what was replaced").
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1_000);
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // a reader never creates a topic
    // Kafka's JMX reporter re-registers an MBean per metric group as each metric is added: a fifth of
    // a narrow command's CPU (docs/benchmarks.md), for metrics of a client that lives a second.
    props.putIfAbsent(ConsumerConfig.METRIC_REPORTER_CLASSES_CONFIG, "");
    props.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1 << 20);
    props.putIfAbsent(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 20);
    props.putIfAbsent(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 1 << 20);
    // It reads up to ends it already knows and never waits for new records; a partition whose last
    // offsets hold nothing to return (a transaction's marker) made the broker hold each fetch for
    // the default 500 ms, a third of a narrow status.
    props.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
    return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, Collection<String> topics,
      KeyPartition which) {
    List<TopicPartition> partitions = new ArrayList<>();
    for (String topic : topics) {
      List<PartitionInfo> all = consumer.partitionsFor(topic, TIMEOUT);
      for (PartitionInfo p : all) {
        if (which.reads(p.partition(), all.size())) {
          partitions.add(new TopicPartition(topic, p.partition()));
        }
      }
    }
    return partitions;
  }

  /** Every record of the topics as bytes, each partition's in offset order, in one consumer. */
  public void readAll(Collection<String> topics, Instant from, Consumer<ConsumerRecord<byte[], byte[]>> each) {
    KafkaConsumer<byte[], byte[]> consumer = shared();
    List<TopicPartition> partitions = partitions(consumer, topics, KeyPartition.ALL);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, TIMEOUT);
    Map<TopicPartition, Long> start = consumer.beginningOffsets(partitions, TIMEOUT);
    if (from != null) {
      Map<TopicPartition, Long> at = new HashMap<>();
      partitions.forEach(tp -> at.put(tp, from.toEpochMilli()));
      consumer.offsetsForTimes(at, TIMEOUT).forEach((tp, o) -> start.put(tp, o == null ? end.get(tp) : o.offset()));
    }
    long total = partitions.stream().mapToLong(tp -> end.get(tp) - start.get(tp)).sum();
    long[] read = {0};
    String what = String.join(", ", topics);
    fetch(consumer, partitions, start, end, r -> r, r -> {
      each.accept(r);
      if (progress != null && ++read[0] % 10_000 == 0) {
        progress.printf("\rreading %s: %d/%d (%d%%)", what, read[0], total, read[0] * 100 / total);
      }
    }, new Object());
    if (progress != null && total > 0) {
      progress.printf("\rreading %s: %d/%d (100%%)%n", what, total, total);
    }
  }

}
