package io.healthmesh.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.Endpoint;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.LoadBalancingScheme;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.AvroSerializer;
import io.healthmesh.schemas.Topics;
import io.healthmesh.schemas.WireFormat;
import io.healthmesh.streams.HealthStreamsApp;
import io.healthmesh.streams.StreamsSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.zip.CRC32;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Probe results from the clients people already have: Confluent's Python client with a plain
 * key and with its AvroProducer (which frames the key too), and kcat. librdkafka partitions a
 * key by CRC32, not murmur2, so every probe here lands on another partition than its service's
 * configuration; none may be lost: all are applied, none dead-lettered.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AnyClientProbesIT {
  private static final int PARTITIONS = 4;
  private static final int PROBES = 10;

  @Test
  void everyProbeIsApplied_whenLibrdkafkaClientsPartitionedIt(@TempDir Path dir) throws Exception {
    assertThat(Commands.run(List.of("sh", "-c", "command -v kcat || echo missing"), 10))
        .as("kcat (Debian package kcat, installed by .ci/run)").doesNotContain("missing");
    try (Stack stack = new Stack(PARTITIONS)) {
      int stringKeyId = stack.client.register(Topics.PROBE_RESULTS.name() + "-key", Schema.create(Schema.Type.STRING));
      String plain = service("python-plain", s -> crc32(utf8(s)));
      String avro = service("python-avro", s -> crc32(framed(stringKeyId, s)));
      String kcat = service("kcat", s -> crc32(utf8(s)));
      List<String> services = List.of(plain, avro, kcat);
      try (KafkaProducer<String, BackendService> config = stack.producer(Topics.BACKEND_SERVICES)) {
        for (String s : List.of(plain, avro)) {
          config.send(new ProducerRecord<>(Topics.BACKEND_SERVICES.name(), s, backendService(s))).get();
        }
      }
      // kcat's service is configured by kcat too: its partitioner puts the configuration elsewhere as well.
      Path serviceFile = Files.write(dir.resolve("service.bin"), new AvroSerializer<BackendService>(stack.client, false)
          .serialize(Topics.BACKEND_SERVICES.name(), backendService(kcat)));
      Commands.run(List.of("kcat", "-P", "-b", stack.kafka.bootstrapServers(), "-t", Topics.BACKEND_SERVICES.name(),
          "-k", kcat, serviceFile.toString()), 60);
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      Properties p = new Properties();
      p.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, stack.kafka.bootstrapServers());
      p.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, stack.registry.url());
      p.setProperty(StreamsSettings.APPLICATION_ID, "any-client-probes-it");
      p.setProperty(StreamsSettings.STATE_DIR, dir.resolve("state").toString());
      try (HealthStreamsApp app = HealthStreamsApp.start(StreamsSettings.from(p), stack.client, meters,
          Duration.ofMinutes(1))) {
        awaitStates(stack, services, EntityKind.BACKEND_SERVICE, null); // the configuration is in force

        Path schema = Files.writeString(dir.resolve("probe.avsc"), ProbeResult.getClassSchema().toString());
        String bootstrap = stack.kafka.bootstrapServers();
        Commands.python("probes", bootstrap, stack.registry.url(), schema.toString(), "plain", plain, "vm-1",
            String.valueOf(PROBES));
        Commands.python("probes", bootstrap, stack.registry.url(), schema.toString(), "avro", avro, "vm-1",
            String.valueOf(PROBES));
        List<String> kcatCommand = new ArrayList<>(List.of("kcat", "-P", "-b", bootstrap, "-t",
            Topics.PROBE_RESULTS.name(), "-k", kcat));
        AvroSerializer<ProbeResult> values = new AvroSerializer<>(stack.client, false);
        for (int i = 0; i < PROBES; i++) {
          ProbeResult r = ProbeResult.newBuilder().setBackendService(kcat).setEndpointId("vm-1").setSuccess(true)
              .setEventTime(Instant.now()).setProber("kcat").build();
          Path file = Files.write(dir.resolve("probe-" + i + ".bin"), values.serialize(Topics.PROBE_RESULTS.name(), r));
          kcatCommand.add(file.toString());
        }
        Commands.run(kcatCommand, 60);

        // The premise: each client put its probes where Kafka's Java producer would not have.
        List<ConsumerRecord<byte[], byte[]>> written = stack.readRaw(Topics.PROBE_RESULTS.name(), 3 * PROBES);
        assertThat(written).hasSize(3 * PROBES);
        for (ConsumerRecord<byte[], byte[]> r : written) {
          String service = services.stream().filter(s -> contains(r.value(), utf8(s))).findFirst().orElseThrow();
          assertThat(r.partition()).as(service).isNotEqualTo(murmur2Partition(service));
        }

        awaitStates(stack, services, EntityKind.ENDPOINT, HealthStatus.HEALTHY);
        // Nothing lost: in = applied + dead-lettered + ignored.
        org.awaitility.Awaitility.await("every probe applied").atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100)).until(() -> count(meters, "healthmesh.probes.applied") >= 3 * PROBES);
        assertThat(count(meters, "healthmesh.probes.applied")).isEqualTo(3 * PROBES);
        assertThat(meters.find("healthmesh.dead.letters").tag("topic", Topics.PROBE_RESULTS.name()).counters())
            .as("registered before any dead letter").hasSize(DeadLetterReason.values().length);
        assertThat(meters.find("healthmesh.dead.letters").counters()).allSatisfy(c -> assertThat(c.count()).isZero());
        assertThat(meters.find("healthmesh.probes.ignored").counters()).as("registered before any probe is ignored")
            .isNotEmpty();
        assertThat(count(meters, "healthmesh.probes.ignored")).isZero();
        assertThat(count(meters, "healthmesh.probes.rerouted")).isEqualTo(3 * PROBES);
        assertThat(count(meters, "healthmesh.config.rerouted")).as("kcat's backend service").isEqualTo(1);
      }
    }
  }

  /** A service name for {@code client} whose client-chosen partition is not Java's. */
  private static String service(String client, java.util.function.ToLongFunction<String> clientHash) {
    return IntStream.range(0, 1000).mapToObj(i -> client + "-" + i)
        .filter(s -> clientHash.applyAsLong(s) % PARTITIONS != murmur2Partition(s)).findFirst().orElseThrow();
  }

  private static int murmur2Partition(String key) {
    return Utils.toPositive(Utils.murmur2(utf8(key))) % PARTITIONS;
  }

  /** librdkafka's default ("consistent_random") partitioner hashes a key with CRC32. */
  private static long crc32(byte[] key) {
    CRC32 crc = new CRC32();
    crc.update(key);
    return crc.getValue();
  }

  private static byte[] framed(int schemaId, String key) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] header = new byte[WireFormat.HEADER_SIZE];
      WireFormat.writeHeader(header, schemaId);
      out.write(header);
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
      encoder.writeString(key);
      encoder.flush();
      return out.toByteArray();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static void awaitStates(Stack stack, List<String> services, EntityKind kind, HealthStatus status) {
    org.awaitility.Awaitility.await(kind + " states of " + services + " " + (status == null ? "published" : status))
        .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
          Map<String, HealthStatus> latest = new HashMap<>();
          Stack.healthStates(stack.kafka.bootstrapServers(), stack.client).forEach((key, value) -> {
            if (key.getKind() == kind) {
              latest.put(key.getName(), value.getStatus());
            }
          });
          return services.stream().allMatch(s -> {
            HealthStatus st = latest.get(kind == EntityKind.ENDPOINT ? s + "/vm-1" : s);
            return st != null && (status == null || st == status);
          });
        });
  }

  private static BackendService backendService(String name) {
    return BackendService.newBuilder().setName(name).setRegion("us-east1")
        .setLoadBalancingScheme(LoadBalancingScheme.INTERNAL_MANAGED).setBackendType(BackendType.GCE_VM_IP_PORT)
        .setHealthCheck(HealthCheckSpec.newBuilder().setCheckIntervalSec(5).setHealthyThreshold(2)
            .setUnhealthyThreshold(2).build())
        .setEndpoints(List.of(Endpoint.newBuilder().setId("vm-1").setIpAddress("10.1.0.1").build())).build();
  }

  private static double count(SimpleMeterRegistry meters, String name) {
    return meters.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
