package io.healthmesh.schemas;

import java.nio.charset.StandardCharsets;

/**
 * The partition Kafka's Java producer (and Kafka Streams) gives a key: murmur2 of its bytes,
 * made positive, modulo the partition count. Written here because Kafka's own copy lives in
 * {@code org.apache.kafka.common.utils}, outside its public API; {@code KeyPartitionsTest}
 * checks this one against it, and ITs against the partitions a real producer chose. The topology
 * routes probe results by it; {@code healthctl get KIND NAME} reads the one partition it names.
 */
public final class KeyPartitions {
  private KeyPartitions() {}

  public static int partition(String key, int partitions) {
    return partition(key.getBytes(StandardCharsets.UTF_8), partitions);
  }

  public static int partition(byte[] key, int partitions) {
    return (murmur2(key) & 0x7fffffff) % partitions;
  }

  public static int murmur2(byte[] data) {
    final int m = 0x5bd1e995;
    final int r = 24;
    int length = data.length;
    int h = 0x9747b28c ^ length;
    int quads = length / 4;
    for (int i = 0; i < quads; i++) {
      int at = i * 4;
      int k = (data[at] & 0xff) + ((data[at + 1] & 0xff) << 8) + ((data[at + 2] & 0xff) << 16)
          + ((data[at + 3] & 0xff) << 24);
      k *= m;
      k ^= k >>> r;
      k *= m;
      h *= m;
      h ^= k;
    }
    int tail = quads * 4;
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
