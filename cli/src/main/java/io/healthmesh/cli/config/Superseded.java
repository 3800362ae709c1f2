package io.healthmesh.cli.config;

import io.healthmesh.cli.kafka.KeyBytes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The records a read of what is in force may leave undecoded: until the log cleaner compacts a
 * topic, four applies of 100,000 record sets leave it 500,000 records, and decoding and keeping
 * each was most of such a read (docs/benchmarks.md, "Reading past what was replaced"). A partition
 * is decoded as it is fetched, as a compacted one needs (its decoding runs while the next records
 * arrive); once a record of it replaces a version the read already holds, the partition has
 * history, and from its next fetch on only each key's latest record is kept, to be decoded after
 * the last fetch. A read of a compacted topic pays one volatile read per record.
 *
 * <p>The reader that keeps the versions says when a record replaced one ({@link #replaced}); each
 * partition's fetch thread asks {@link #defers} of its records; {@link #latest} is asked once
 * every fetch is done.
 */
final class Superseded {
  /**
   * By topic and partition with history: each key's latest record since, by its fetch thread
   * alone. Partitions are few, and their numbers' boxes are the JVM's cached ones.
   */
  private final Map<String, Map<Integer, Map<KeyBytes, Kept>>> deferred = new ConcurrentHashMap<>();
  /** Whether any partition has history: a compacted read asks nothing more. */
  private volatile boolean history;
  /** Whether every fetch is done: the deferred records' own visits are not history. */
  private boolean fetched;

  /**
   * What a deferred record needs to be read later: most of a fetched record is the consumer's
   * bookkeeping, and a deferred record lives until its key's next one, long enough for the
   * collector to copy it.
   */
  private record Kept(long offset, byte[] value) {}

  /** The record replaced a version already held: its partition holds history. */
  void replaced(String topic, int partition) {
    if (!fetched) {
      deferred.computeIfAbsent(topic, t -> new ConcurrentHashMap<>()).computeIfAbsent(partition, p -> new HashMap<>());
      history = true;
    }
  }

  /** In the record's fetch thread: whether its decoding waits for the end (it may be superseded). */
  boolean defers(ConsumerRecord<byte[], byte[]> r) {
    if (!history || r.key() == null) {
      return false;
    }
    Map<Integer, Map<KeyBytes, Kept>> topic = deferred.get(r.topic());
    Map<KeyBytes, Kept> latest = topic == null ? null : topic.get(r.partition());
    if (latest == null) {
      return false;
    }
    latest.put(new KeyBytes(r.key()), new Kept(r.offset(), r.value()));
    return true;
  }

  /** Once every fetch is done: each deferred key's latest record, a tombstone included. */
  List<ConsumerRecord<byte[], byte[]>> latest() {
    fetched = true;
    List<ConsumerRecord<byte[], byte[]>> latest = new ArrayList<>();
    deferred.forEach((topic, partitions) -> partitions.forEach((partition, records) -> records.forEach(
        (key, kept) -> latest.add(new ConsumerRecord<>(topic, partition, kept.offset(), key.bytes(), kept.value())))));
    return latest;
  }
}
