package io.healthmesh.cli.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class KeyPartitionTest {

  @Test
  void readsEveryPartition_orTheOneKafkasProducerGivesTheKey() {
    byte[] key = "bench/r5.bench.example./A".getBytes(StandardCharsets.UTF_8);
    for (int count : new int[] {1, 3, 12}) {
      int home = Utils.toPositive(Utils.murmur2(key)) % count;
      for (int p = 0; p < count; p++) {
        assertThat(KeyPartition.ALL.reads(p, count)).isTrue();
        assertThat(KeyPartition.of(key).reads(p, count)).isEqualTo(p == home);
      }
    }
  }
}
