package io.healthmesh.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.AvroDeserializationException.Reason;
import io.healthmesh.schemas.AvroDeserializer;
import io.healthmesh.schemas.AvroSerializer;
import io.healthmesh.schemas.RegistryConfig;
import io.healthmesh.schemas.Topics;
import io.healthmesh.schemas.WireFormat;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Damaged records on a real topic give an exception that says what, where and why. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CorruptedBytesIT {
  private static final String TOPIC = Topics.PROBE_RESULTS.name();
  private static Stack stack;
  private static List<ConsumerRecord<byte[], byte[]>> written;

  @BeforeAll
  static void writeDamagedRecords() throws Exception {
    stack = new Stack();
    byte[] good = new AvroSerializer<ProbeResult>(stack.client, false).serialize(TOPIC, Samples.probe());
    byte[] badMagic = good.clone();
    badMagic[0] = 7;
    byte[] unknownId = good.clone();
    WireFormat.writeHeader(unknownId, 4242);
    byte[] truncated = Arrays.copyOf(good, good.length - 6);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka.bootstrapServers()),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      for (byte[] value : List.of(good, badMagic, unknownId, truncated)) {
        // One partition, so offsets 0..3 are in this order.
        producer.send(new ProducerRecord<>(TOPIC, 0, null, value)).get();
      }
    }
    written = stack.readRaw(TOPIC, 4);
  }

  @AfterAll
  static void stop() {
    stack.close();
  }

  @Test
  void readsTheIntactRecord_whenBytesAreGood() {
    assertThat(deserializer().deserialize(written.get(0))).isEqualTo(Samples.probe());
  }

  @Test
  void namesTopicPartitionOffsetAndBadMagic_whenFirstByteIsWrong() {
    assertFailure(written.get(1), Reason.BAD_MAGIC_BYTE, "0x07");
  }

  @Test
  void namesUnknownSchemaId_whenRegistryNeverIssuedIt() {
    assertFailure(written.get(2), Reason.UNKNOWN_SCHEMA_ID, "schema id 4242");
  }

  @Test
  void namesTruncation_whenBodyIsCut() {
    assertFailure(written.get(3), Reason.TRUNCATED, "ended before");
  }

  @Test
  void consumerReportsPositionAndOurReason_whenConfiguredWithOurDeserializer() {
    Map<String, Object> props = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka.bootstrapServers(),
        ConsumerConfig.GROUP_ID_CONFIG, "corrupt-" + System.nanoTime(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        RegistryConfig.SCHEMA_REGISTRY_URL, stack.registry.url());
    try (KafkaConsumer<String, ProbeResult> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
        configured(props))) {
      consumer.subscribe(List.of(TOPIC));
      RecordDeserializationException failure = null;
      long deadline = System.currentTimeMillis() + 30_000;
      while (failure == null && System.currentTimeMillis() < deadline) {
        try {
          consumer.poll(Duration.ofMillis(200));
        } catch (RecordDeserializationException e) {
          failure = e;
        }
      }
      assertThat(failure).isNotNull();
      assertThat(failure.offset()).isEqualTo(1);
      assertThat(failure.topicPartition().topic()).isEqualTo(TOPIC);
      assertThat(failure.getCause()).isInstanceOfSatisfying(AvroDeserializationException.class,
          e -> assertThat(e.reason()).isEqualTo(Reason.BAD_MAGIC_BYTE));
    }
  }

  private static AvroDeserializer<ProbeResult> configured(Map<String, Object> props) {
    AvroDeserializer<ProbeResult> deserializer = new AvroDeserializer<>();
    deserializer.configure(props, false);
    return deserializer;
  }

  private static AvroDeserializer<ProbeResult> deserializer() {
    return new AvroDeserializer<>(stack.client, ProbeResult.class);
  }

  private static void assertFailure(ConsumerRecord<byte[], byte[]> record, Reason reason, String detail) {
    assertThatThrownBy(() -> deserializer().deserialize(record))
        .isInstanceOfSatisfying(AvroDeserializationException.class, e -> {
          assertThat(e.reason()).isEqualTo(reason);
          assertThat(e.topic()).isEqualTo(TOPIC);
          assertThat(e.partition()).isEqualTo(0);
          assertThat(e.offset()).isEqualTo(record.offset());
        })
        .hasMessageContaining("topic " + TOPIC + " partition 0 offset " + record.offset())
        .hasMessageContaining(detail);
  }
}
