package io.healthmesh.streams;

import static io.healthmesh.streams.Harness.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.events.DeadLetter;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.AvroSerializer;
import io.healthmesh.schemas.KeyPartitions;
import io.healthmesh.schemas.Topics;
import io.healthmesh.schemas.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Probe results from any client reach their service's state: the driver reads every input on
 * partition 0 of 4, so a service owned by another partition stands for a probe that librdkafka's
 * partitioner, or a framed key, put on the wrong one.
 */
class ProbeRoutingTest {
  private static final int PARTITIONS = 4;
  /** A service whose key Kafka's Java producer would put on another partition than 0. */
  private static final String ELSEWHERE = IntStream.range(0, 100).mapToObj(i -> "orders-" + i)
      .filter(s -> KeyPartitions.partition(s, PARTITIONS) != 0).findFirst().orElseThrow();
  private final Harness h = new Harness(PARTITIONS);

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void appliesAProbe_whenAnotherPartitionerPutItOnAnotherPartition() {
    h.service(Harness.service(ELSEWHERE, 1));
    h.probeAll(ELSEWHERE, List.of("vm-1"), true, 2, T0);

    assertThat(h.status(EntityKind.ENDPOINT, ELSEWHERE + "/vm-1")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.probeDeadLetters).isEmpty();
    assertThat(h.counter("healthmesh.probes.rerouted")).isEqualTo(2);
    // The transition names the probe where it was written, not the internal topic that moved it.
    HealthTransition t = h.transitions(EntityKind.ENDPOINT, ELSEWHERE + "/vm-1").get(0);
    assertThat(t.getCause().getTriggerTopic()).isEqualTo(Topics.PROBE_RESULTS.name());
    assertThat(t.getCause().getTriggerPartition()).isEqualTo(0);
    assertThat(t.getCause().getTriggerOffset()).isEqualTo(1);
  }

  @Test
  void appliesABackendService_whenAnotherPartitionerPutItOnAnotherPartition() {
    h.service(Harness.service(ELSEWHERE, 1)); // read on partition 0; its name belongs elsewhere
    h.probeAll(ELSEWHERE, List.of("vm-1"), true, 2, T0);

    assertThat(h.counter("healthmesh.config.rerouted")).isEqualTo(1);
    assertThat(h.status(EntityKind.BACKEND_SERVICE, ELSEWHERE)).as("its configuration met its probes").isNotNull();
    assertThat(h.status(EntityKind.ENDPOINT, ELSEWHERE + "/vm-1")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.configDeadLetters).isEmpty();
  }

  @Test
  void staysOnItsPartition_whenTheKeyBelongsThere() {
    String here = IntStream.range(0, 100).mapToObj(i -> "local-" + i)
        .filter(s -> KeyPartitions.partition(s, PARTITIONS) == 0).findFirst().orElseThrow();
    h.service(Harness.service(here, 1));
    h.probeAll(here, List.of("vm-1"), true, 2, T0);

    assertThat(h.status(EntityKind.ENDPOINT, here + "/vm-1")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.counter("healthmesh.probes.rerouted")).isZero();
  }

  @Test
  void acceptsTheKey_whenConfluentsAvroSerializerFramedItAsAString() throws IOException {
    h.service(Harness.service(ELSEWHERE, 1));
    byte[] key = framed(Schema.create(Schema.Type.STRING), ELSEWHERE);
    h.rawProbe(key, probe(ELSEWHERE, "vm-1", T0), T0);
    h.rawProbe(key, probe(ELSEWHERE, "vm-1", T0.plusSeconds(1)), T0.plusSeconds(1));

    assertThat(h.status(EntityKind.ENDPOINT, ELSEWHERE + "/vm-1")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.probeDeadLetters).isEmpty();
  }

  @Test
  void deadLettersWithItsReason_whenAFramedKeyIsNotAString() throws IOException {
    h.service(Harness.service(ELSEWHERE, 1));
    h.rawProbe(framed(Schema.create(Schema.Type.LONG), 42L), probe(ELSEWHERE, "vm-1", T0), T0);

    h.drain();
    assertThat(h.probeDeadLetters).singleElement().satisfies(d -> {
      assertThat(d.getReason()).isEqualTo(DeadLetterReason.INVALID);
      assertThat(d.getMessage()).contains("of type long").contains("keys here are strings");
    });
  }

  @Test
  void appliesAKeylessProbe_atItsServicesPartition() {
    h.service(Harness.service(ELSEWHERE, 1));
    h.rawProbe(null, probe(ELSEWHERE, "vm-1", T0), T0);
    h.rawProbe(null, probe(ELSEWHERE, "vm-1", T0.plusSeconds(1)), T0.plusSeconds(1));

    assertThat(h.status(EntityKind.ENDPOINT, ELSEWHERE + "/vm-1")).isEqualTo(HealthStatus.HEALTHY);
    assertThat(h.probeDeadLetters).isEmpty();
  }

  @Test
  void keepsAHeartbeat_onThePartitionItWasWrittenTo() {
    String key = IntStream.range(0, 100).mapToObj(i -> "heartbeat-" + i)
        .filter(s -> KeyPartitions.partition(s, PARTITIONS) != 0).findFirst().orElseThrow();
    h.heartbeat(key, T0);

    assertThat(h.counter("healthmesh.probes.heartbeats")).isEqualTo(1);
    assertThat(h.counter("healthmesh.probes.rerouted")).isZero();
  }

  @Test
  void deadLetterNamesWhereTheProbeWasWritten_whenAMovedProbeIsUnknown_R_EP_6() {
    h.service(Harness.service(ELSEWHERE, 1));
    h.probe(ELSEWHERE, "vm-9", true, T0);

    h.drain();
    DeadLetter letter = h.probeDeadLetters.get(0);
    assertThat(letter.getReason()).isEqualTo(DeadLetterReason.UNKNOWN_ENTITY);
    assertThat(letter.getMessage()).contains("R-EP-6");
    assertThat(letter.getSourceTopic()).isEqualTo(Topics.PROBE_RESULTS.name());
    assertThat(letter.getSourcePartition()).isZero();
    assertThat(letter.getSourceOffset()).isZero();
  }

  private byte[] probe(String service, String endpoint, Instant at) {
    return new AvroSerializer<ProbeResult>(h.registry, false).serialize(Topics.PROBE_RESULTS.name(),
        ProbeResult.newBuilder().setType(ProbeRecordType.RESULT).setBackendService(service).setEndpointId(endpoint)
            .setSuccess(true).setEventTime(at).setProber("librdkafka").build());
  }

  /** A key as Confluent's Avro serializer writes it: magic byte, schema id, Avro body. */
  private byte[] framed(Schema schema, Object value) throws IOException {
    int id = h.registry.register(Topics.PROBE_RESULTS.name() + "-key", schema);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] header = new byte[WireFormat.HEADER_SIZE];
    WireFormat.writeHeader(header, id);
    out.write(header);
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    if (value instanceof String s) {
      encoder.writeString(s);
    } else {
      encoder.writeLong((Long) value);
    }
    encoder.flush();
    return out.toByteArray();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
