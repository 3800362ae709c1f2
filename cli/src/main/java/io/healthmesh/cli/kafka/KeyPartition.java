package io.healthmesh.cli.kafka;

import io.healthmesh.schemas.KeyPartitions;
import java.util.Arrays;

/**
 * Which partitions of a topic a read needs: all, or the one where Kafka's default partitioner puts
 * a key ({@link KeyPartitions}). {@code apply} and {@code delete} write every configuration record
 * with that partitioner, so a question about one resource reads one partition.
 */
public final class KeyPartition {
  /** Every partition. */
  public static final KeyPartition ALL = new KeyPartition(null);

  private final byte[] key;

  private KeyPartition(byte[] key) {
    this.key = key;
  }

  /** The one partition of each topic that holds {@code key}'s records. */
  public static KeyPartition of(byte[] key) {
    return new KeyPartition(Arrays.copyOf(key, key.length));
  }

  /** Whether partition {@code partition} of a topic of {@code count} partitions is read. */
  public boolean reads(int partition, int count) {
    return key == null || partition == KeyPartitions.partition(key, count);
  }
}
