package io.healthmesh.cli.kafka;

import java.util.Arrays;

/**
 * Which partitions of a topic a read needs: all, or the one where Kafka's default partitioner puts
 * a key (murmur2 of its bytes, made positive, modulo the partition count). {@code apply} and
 * {@code delete} write every configuration record with that partitioner, so a question about one
 * resource reads one partition. The hash is written out here because Kafka's own is not in its
 * public API; {@code KeyPartitionTest} holds it to Kafka's, and {@code ConfigCommandsIT} to where a
 * real producer put each record.
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
    return key == null || partition == of(key, count);
  }

  /** The partition of {@code count} that Kafka's default partitioner gives {@code key}. */
  public static int of(byte[] key, int count) {
    return (murmur2(key) & 0x7fffffff) % count;
  }

  /** Kafka's murmur2 (seed 0x9747b28c), as its producer hashes a key. */
  static int murmur2(byte[] data) {
    final int m = 0x5bd1e995;
    int length = data.length;
    int h = 0x9747b28c ^ length;
    for (int i = 0; i + 4 <= length; i += 4) {
      int k = (data[i] & 0xff) | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff) << 16 | (data[i + 3] & 0xff) << 24;
      k *= m;
      k ^= k >>> 24;
      k *= m;
      h *= m;
      h ^= k;
    }
    int tail = length & ~3;
    switch (length % 4) {
      case 3:
        h ^= (data[tail + 2] & 0xff) << 16;
        // fall through
      case 2:
        h ^= (data[tail + 1] & 0xff) << 8;
        // fall through
      case 1:
        h ^= data[tail] & 0xff;
        h *= m;
        break;
      default:
        break;
    }
    h ^= h >>> 13;
    h *= m;
    h ^= h >>> 15;
    return h;
  }
}
