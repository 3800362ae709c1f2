package io.healthmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.AvroDeserializationException.Reason;
import java.time.Instant;
import java.util.Arrays;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class AvroSerdeTest {
  private static final String TOPIC = "probe-results";
  private final InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
  private final AvroSerializer<ProbeResult> serializer = new AvroSerializer<>(registry, false);
  private final AvroDeserializer<ProbeResult> deserializer = new AvroDeserializer<>(registry, ProbeResult.class);

  static ProbeResult probe() {
    return ProbeResult.newBuilder()
        .setType(ProbeRecordType.RESULT)
        .setBackendService("orders-use1")
        .setEndpointId("vm-1")
        .setSuccess(true)
        .setEventTime(Instant.ofEpochMilli(1_764_000_000_000L))
        .setProber("prober-a")
        .setLatencyMicros(1234)
        .setDetail("HTTP 200")
        .build();
  }

  @Test
  void writesConfluentFrameAndReadsItBack_whenRoundTripped() {
    byte[] bytes = serializer.serialize(TOPIC, probe());

    assertThat(bytes[0]).isEqualTo((byte) 0);
    assertThat(WireFormat.schemaId(TOPIC, bytes)).isEqualTo(1);
    assertThat(deserializer.deserialize(TOPIC, bytes)).isEqualTo(probe());
  }

  @Test
  void asksTheRegistryOncePerSchema_whenManyRecordsAreSerialized() {
    for (int i = 0; i < 100; i++) {
      deserializer.deserialize(TOPIC, serializer.serialize(TOPIC, probe()));
    }
    assertThat(registry.calls()).isEqualTo(2); // one register, one fetch by id
  }

  @Test
  void readsIntoTheGeneratedClass_whenNoTypeIsGiven() {
    AvroDeserializer<org.apache.avro.specific.SpecificRecord> byWriterName = new AvroDeserializer<>(registry);
    Object value = byWriterName.deserialize(TOPIC, serializer.serialize(TOPIC, probe()));
    assertThat(value).isInstanceOf(ProbeResult.class).isEqualTo(probe());
  }

  @Test
  void passesTombstonesThrough_whenValueIsNull() {
    assertThat(serializer.serialize(TOPIC, null)).isNull();
    assertThat(deserializer.deserialize(TOPIC, null)).isNull();
  }

  @Test
  void failsWithBadMagicByte_whenFirstByteIsNotZero() {
    byte[] bytes = serializer.serialize(TOPIC, probe());
    bytes[0] = 1;
    assertThatThrownBy(() -> deserializer.deserialize(TOPIC, bytes))
        .isInstanceOfSatisfying(AvroDeserializationException.class, e -> {
          assertThat(e.reason()).isEqualTo(Reason.BAD_MAGIC_BYTE);
          assertThat(e.topic()).isEqualTo(TOPIC);
        })
        .hasMessageContaining("topic probe-results").hasMessageContaining("0x01");
  }

  @Test
  void failsWithBadMagicByte_whenShorterThanTheHeader() {
    assertThatThrownBy(() -> deserializer.deserialize(TOPIC, new byte[] {0, 0}))
        .isInstanceOfSatisfying(AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.BAD_MAGIC_BYTE));
  }

  @Test
  void failsWithUnknownSchemaId_whenRegistryDoesNotKnowTheId() {
    byte[] bytes = serializer.serialize(TOPIC, probe());
    WireFormat.writeHeader(bytes, 777);
    assertThatThrownBy(() -> deserializer.deserialize(TOPIC, bytes))
        .isInstanceOfSatisfying(AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_SCHEMA_ID))
        .hasMessageContaining("schema id 777");
  }

  @Test
  void failsWithTruncated_whenBodyIsCutShort() {
    byte[] bytes = serializer.serialize(TOPIC, probe());
    byte[] cut = Arrays.copyOf(bytes, bytes.length - 4);
    assertThatThrownBy(() -> deserializer.deserialize(TOPIC, cut))
        .isInstanceOfSatisfying(AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED));
  }

  @Test
  void failsWithTruncated_whenBytesAreLeftOver() {
    byte[] bytes = serializer.serialize(TOPIC, probe());
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 3);
    assertThatThrownBy(() -> deserializer.deserialize(TOPIC, longer))
        .isInstanceOfSatisfying(AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED))
        .hasMessageContaining("left over");
  }

  @Test
  void namesPartitionAndOffset_whenTheRecordIsKnown() {
    byte[] bytes = serializer.serialize(TOPIC, probe());
    bytes[0] = 9;
    ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>(TOPIC, 2, 41L, null, bytes);
    assertThatThrownBy(() -> deserializer.deserialize(record))
        .isInstanceOfSatisfying(AvroDeserializationException.class, e -> {
          assertThat(e.partition()).isEqualTo(2);
          assertThat(e.offset()).isEqualTo(41L);
          assertThat(e.reason()).isEqualTo(Reason.BAD_MAGIC_BYTE);
        })
        .hasMessageContaining("topic probe-results partition 2 offset 41");
  }

  @Test
  void failsWithIncompatibleSchema_whenWriterTypeCannotBeReadAsExpectedType() {
    AvroSerializer<io.healthmesh.events.HealthState> other = new AvroSerializer<>(registry, false);
    byte[] bytes = other.serialize(TOPIC, io.healthmesh.events.HealthState.newBuilder()
        .setSince(Instant.EPOCH).build());
    assertThatThrownBy(() -> deserializer.deserialize(TOPIC, bytes))
        .isInstanceOfSatisfying(AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.INCOMPATIBLE_SCHEMA));
  }

  @Test
  void serializerNamesSubject_whenRegistryRefuses() {
    AvroSerializer<ProbeResult> lookupOnly = new AvroSerializer<>(registry, false);
    lookupOnly.configure(java.util.Map.of(RegistryConfig.AUTO_REGISTER_SCHEMAS, "false"), false);
    assertThatThrownBy(() -> lookupOnly.serialize("other-topic", probe()))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("subject other-topic-value");
  }
}
