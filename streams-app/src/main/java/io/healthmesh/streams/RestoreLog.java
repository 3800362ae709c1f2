package io.healthmesh.streams;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says what each task restored from its changelogs when it started: how many records of which
 * store, and how long it took: what a restart or a moved task waits for.
 */
final class RestoreLog implements StateRestoreListener {
  private static final Logger LOG = LoggerFactory.getLogger(RestoreLog.class);
  private final MeterRegistry meters;
  private final Map<TopicPartition, Long> started = new ConcurrentHashMap<>();
  private final Map<String, Counter> records = new ConcurrentHashMap<>();

  RestoreLog(MeterRegistry meters) {
    this.meters = meters;
  }

  @Override
  public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
    started.put(partition, System.nanoTime());
  }

  @Override
  public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long restored) {
    records.computeIfAbsent(store, s -> Counter.builder("healthmesh.topology.restored.records")
        .description("Changelog records restored into a store as its tasks started").tag("store", s)
        .register(meters)).increment(restored);
  }

  @Override
  public void onRestoreSuspended(TopicPartition partition, String store, long totalRestored) {
    started.remove(partition);
  }

  @Override
  public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
    Long t0 = started.remove(partition);
    long millis = t0 == null ? 0 : (System.nanoTime() - t0) / 1_000_000;
    LOG.info("restored {} records of store {} from {} in {} ms", totalRestored, store, partition, millis);
  }
}
