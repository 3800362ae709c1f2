package io.healthmesh.cli.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class SupersededTest {
  private static final String TOPIC = "config.resource-record-set";

  @Test
  void decodesEveryRecord_whenNothingWasReplaced() {
    Superseded superseded = new Superseded();
    assertThat(superseded.defers(record(0, 0, "a", "1"))).isFalse();
    assertThat(superseded.defers(record(0, 1, "b", "1"))).isFalse();
    assertThat(superseded.latest()).isEmpty();
  }

  @Test
  void keepsEachKeysLatestRecordOfAPartitionWithHistory_andDecodesTheOthersPartitions() {
    Superseded superseded = new Superseded();
    superseded.replaced(TOPIC, 0);
    assertThat(superseded.defers(record(0, 10, "a", "2"))).isTrue();
    assertThat(superseded.defers(record(0, 11, "b", "2"))).isTrue();
    assertThat(superseded.defers(record(0, 12, "a", "3"))).isTrue();
    assertThat(superseded.defers(record(0, 13, "b", null))).as("a tombstone is a key's latest record too").isTrue();
    assertThat(superseded.defers(record(1, 10, "c", "2"))).as("no history seen in partition 1").isFalse();
    assertThat(superseded.defers(record(0, 14, null, "x"))).as("a record without a key is no one's").isFalse();

    assertThat(superseded.latest()).extracting(r -> r.partition() + ":" + r.offset() + ":" + text(r.key()) + "="
        + text(r.value())).containsExactlyInAnyOrder("0:12:a=3", "0:13:b=null");
  }

  @Test
  void defersNothingMore_onceEveryFetchIsDone() {
    Superseded superseded = new Superseded();
    superseded.latest();
    superseded.replaced(TOPIC, 0); // the deferred records' own visits replace what was held
    assertThat(superseded.defers(record(0, 20, "a", "4"))).isFalse();
  }

  private static ConsumerRecord<byte[], byte[]> record(int partition, long offset, String key, String value) {
    return new ConsumerRecord<>(TOPIC, partition, offset, bytes(key), bytes(value));
  }

  private static byte[] bytes(String text) {
    return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] bytes) {
    return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
  }
}
