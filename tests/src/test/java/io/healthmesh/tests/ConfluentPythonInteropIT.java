package io.healthmesh.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.Endpoint;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.LoadBalancingScheme;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.schemas.Topics;
import io.healthmesh.schemas.WireFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Confluent's own Python client (librdkafka and its Avro serdes, Debian packages) reads what we
 * write and writes what we read, through our broker and our registry.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ConfluentPythonInteropIT {
  private static final String TOPIC = Topics.HEALTH_STATE.name();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Stack stack;

  @BeforeAll
  static void start() throws Exception {
    String check = Commands.run(List.of(Commands.PYTHON, "-c", "import confluent_kafka.avro, avro"), 30);
    assertThat(check).as("Debian python3-confluent-kafka and python3-avro (installed by .ci/run)").isEmpty();
    stack = new Stack();
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void confluentPythonConsumerDecodes_whenOurSerializerWrote() throws Exception {
    EntityKey key = EntityKey.newBuilder().setKind(EntityKind.HEALTH_SOURCE).setName("written-by-java").build();
    HealthState value = HealthState.newBuilder().setStatus(HealthStatus.HEALTHY)
        .setSince(Instant.parse("2026-11-30T10:15:30.250Z")).setRegion("us-east1").setHealthyCount(3)
        .setUnhealthyCount(1).setVersion(5).build();
    try (KafkaProducer<EntityKey, HealthState> producer = stack.producer(Topics.HEALTH_STATE)) {
      producer.send(new ProducerRecord<>(TOPIC, key, value)).get();
    }

    JsonNode read = JSON.readTree(Commands.python("consume", stack.kafka.bootstrapServers(), stack.registry.url(), TOPIC,
        "written-by-java"));

    assertThat(read.at("/key/kind").asText()).isEqualTo("HEALTH_SOURCE");
    assertThat(read.at("/value/status").asText()).isEqualTo("HEALTHY");
    assertThat(read.at("/value/since").asLong()).isEqualTo(value.getSince().toEpochMilli());
    assertThat(read.at("/value/region").asText()).isEqualTo("us-east1");
    assertThat(read.at("/value/healthyCount").asInt()).isEqualTo(3);
    assertThat(read.at("/value/unhealthyCount").asInt()).isEqualTo(1);
    assertThat(read.at("/value/version").asLong()).isEqualTo(5);
    assertThat(read.at("/value/sourceOffset").isNull()).isTrue();
  }

  @Test
  void ourDeserializerDecodes_whenConfluentPythonProducerRegisteredAndWrote(@TempDir Path dir) throws Exception {
    Path keySchema = Files.writeString(dir.resolve("key.avsc"), EntityKey.getClassSchema().toString());
    Path valueSchema = Files.writeString(dir.resolve("value.avsc"), HealthState.getClassSchema().toString());

    Commands.python("produce", stack.kafka.bootstrapServers(), stack.registry.url(), TOPIC, keySchema.toString(),
        valueSchema.toString(), "written-by-python");

    ConsumerRecord<byte[], byte[]> record = stack.findRaw(TOPIC,
        r -> new String(r.key(), StandardCharsets.UTF_8).contains("written-by-python"));
    assertThat(record.value()[0]).as("Confluent magic byte").isEqualTo(WireFormat.MAGIC_BYTE);
    assertThat(stack.client.byId(WireFormat.schemaId(TOPIC, record.value())).getFullName())
        .isEqualTo("io.healthmesh.events.HealthState");

    EntityKey key = Topics.HEALTH_STATE.keySerde(stack.client).deserializer().deserialize(TOPIC, record.key());
    HealthState value = Topics.HEALTH_STATE.valueSerde(stack.client).deserializer().deserialize(TOPIC, record.value());

    assertThat(key).isEqualTo(EntityKey.newBuilder().setKind(EntityKind.COMPOSITE_HEALTH_CHECK)
        .setName("written-by-python").build());
    assertThat(value).isEqualTo(HealthState.newBuilder().setStatus(HealthStatus.UNHEALTHY)
        .setSince(Instant.parse("2026-11-30T12:00:00.123Z")).setRegion("europe-west1").setHealthyCount(1)
        .setUnhealthyCount(9).setUnknownCount(0).setVersion(42).setSourceOffset(1234L).build());
  }

  @Test
  void confluentPythonConsumerDecodes_whenATopicHasPlainStringKeys() throws Exception {
    BackendService service = BackendService.newBuilder().setName("read-by-python").setRegion("us-east1")
        .setLoadBalancingScheme(LoadBalancingScheme.INTERNAL_MANAGED).setBackendType(BackendType.GCE_VM_IP_PORT)
        .setHealthCheck(HealthCheckSpec.newBuilder().build())
        .setEndpoints(List.of(Endpoint.newBuilder().setId("vm-1").setIpAddress("10.1.0.1").build())).build();
    try (KafkaProducer<String, BackendService> producer = stack.producer(Topics.BACKEND_SERVICES)) {
      producer.send(new ProducerRecord<>(Topics.BACKEND_SERVICES.name(), service.getName(), service)).get();
    }

    JsonNode read = JSON.readTree(Commands.python("consume-string-keys", stack.kafka.bootstrapServers(),
        stack.registry.url(), Topics.BACKEND_SERVICES.name(), "read-by-python"));

    assertThat(read.at("/key").asText()).isEqualTo("read-by-python");
    assertThat(read.at("/value/region").asText()).isEqualTo("us-east1");
    assertThat(read.at("/value/endpoints/0/ipAddress").asText()).isEqualTo("10.1.0.1");
  }
}
