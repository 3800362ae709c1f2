package io.healthmesh.cli.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class KeyPartitionTest {

  @Test
  void hashesAsKafkasProducer_whenKeysAreOfEveryLength() {
    Random random = new Random(7);
    for (int length = 0; length < 64; length++) {
      for (int i = 0; i < 50; i++) {
        byte[] key = new byte[length];
        random.nextBytes(key);
        assertThat(KeyPartition.murmur2(key)).as("length %d", length).isEqualTo(Utils.murmur2(key));
        for (int count : new int[] {1, 3, 7, 12}) {
          assertThat(KeyPartition.of(key, count)).isEqualTo(Utils.toPositive(Utils.murmur2(key)) % count);
        }
      }
    }
    // Kafka's own test vectors
    assertThat(KeyPartition.murmur2("21".getBytes(StandardCharsets.UTF_8))).isEqualTo(-973932308);
    assertThat(KeyPartition.murmur2("foobar".getBytes(StandardCharsets.UTF_8))).isEqualTo(-790332482);
    assertThat(KeyPartition.murmur2(new byte[] {'a', 'b', 'c'})).isEqualTo(479470107);
  }

  @Test
  void readsEveryPartition_orTheKeysOnly() {
    byte[] key = "bench/r5.bench.example./A".getBytes(StandardCharsets.UTF_8);
    int home = KeyPartition.of(key, 3);
    for (int p = 0; p < 3; p++) {
      assertThat(KeyPartition.ALL.reads(p, 3)).isTrue();
      assertThat(KeyPartition.of(key).reads(p, 3)).isEqualTo(p == home);
    }
  }
}
