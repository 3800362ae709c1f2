package io.healthmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class KeyPartitionsTest {
  @Test
  void choosesKafkasPartition_forKeysOfEveryLength() {
    Random random = new Random(7);
    for (int i = 0; i < 10_000; i++) {
      byte[] key = new byte[random.nextInt(40)];
      random.nextBytes(key);
      assertThat(KeyPartitions.murmur2(key)).isEqualTo(Utils.murmur2(key));
    }
    for (String key : new String[] {"", "a", "orders-use1", "2001:db8::1", "ünïcode-ß"}) {
      for (int partitions : new int[] {1, 2, 3, 12, 100}) {
        assertThat(KeyPartitions.partition(key, partitions))
            .isEqualTo(Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions);
      }
    }
  }
}
