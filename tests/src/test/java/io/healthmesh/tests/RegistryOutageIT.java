package io.healthmesh.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.Endpoint;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.LoadBalancingScheme;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.edge.EdgeApp;
import io.healthmesh.edge.EdgeSettings;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.AvroSerializer;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.healthmesh.schemas.WireFormat;
import io.healthmesh.streams.HealthStreamsApp;
import io.healthmesh.streams.StreamsSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A registry outage is not bad data. Probes and configuration written during a 30 s outage with
 * schema versions that the topology and the edge have never seen wait for the registry instead
 * of becoming dead letters; afterwards every state and every answer is right.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RegistryOutageIT {
  private static final String ZONE = "internal";

  @Test
  void nothingIsDeadLetteredAndEveryStateAndAnswerIsRight_whenTheRegistryWasAwayFor30s(@TempDir Path dir)
      throws Exception {
    int registryPort;
    try (ServerSocket s = new ServerSocket(0)) {
      registryPort = s.getLocalPort();
    }
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).start()) {
      Properties rp = new Properties();
      rp.setProperty(RegistrySettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      rp.setProperty(RegistrySettings.PORT, String.valueOf(registryPort));
      SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.from(rp));
      String url = registry.url();
      SchemaRegistryClient writer = new RestSchemaRegistryClient(url);
      try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
          new StringSerializer(), new ByteArraySerializer())) {
        Writer w = new Writer(producer, writer);
        w.send(Topics.MANAGED_ZONES.name(), ZONE, ManagedZone.newBuilder().setName(ZONE).setDnsName("example.internal.")
            .setNetworks(List.of("127.0.0.0/8")).build());
        w.send(Topics.RESOURCE_RECORD_SETS.name(), ZONE + "/api.example.internal./A", wrr("api.example.internal.",
            List.of("10.0.0.1", "10.0.0.2")));
        w.send(Topics.BACKEND_SERVICES.name(), "orders", service("vm-1", "vm-2"));

        SimpleMeterRegistry topologyMeters = new SimpleMeterRegistry();
        SimpleMeterRegistry edgeMeters = new SimpleMeterRegistry();
        try (HealthStreamsApp topology = HealthStreamsApp.start(streamsSettings(kafka, url, dir),
                new RestSchemaRegistryClient(url), topologyMeters, Duration.ofMinutes(1));
            EdgeApp edge = EdgeApp.start(edgeSettings(kafka, url), new RestSchemaRegistryClient(url), edgeMeters)) {
          edge.awaitReady(Duration.ofSeconds(60));
          SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", edge.port()));
          resolver.setTimeout(Duration.ofSeconds(2));
          // The configuration is read before probes flow: record sets, the external endpoints they
          // check (through the topology's own repartition topic) and services.
          org.awaitility.Awaitility.await("the configuration read").atMost(Duration.ofSeconds(60)).until(() ->
              kafka.consumed("registry-outage-it", Topics.RESOURCE_RECORD_SETS.name())
                  && kafka.consumed("registry-outage-it", "registry-outage-it-external-endpoints-repartition")
                  && kafka.consumed("registry-outage-it", Topics.BACKEND_SERVICES.name()));
          for (int i = 0; i < 2; i++) {
            w.send(Topics.PROBE_RESULTS.name(), "10.0.0.1", probe(null, "10.0.0.1", true));
            w.send(Topics.PROBE_RESULTS.name(), "10.0.0.2", probe(null, "10.0.0.2", true));
            w.send(Topics.PROBE_RESULTS.name(), "orders", probe("orders", "vm-1", true));
          }
          Map<String, HealthStatus> states = awaitStates(kafka, writer, m -> m.get("EXTERNAL_ENDPOINT/10.0.0.1") == HealthStatus.HEALTHY
              && m.get("ENDPOINT/orders/vm-1") == HealthStatus.HEALTHY);
          await(() -> answers(resolver, "api.example.internal.").equals(Set.of("10.0.0.1", "10.0.0.2")), "both answered");

          // Versions that the topology and the edge have not cached: a newer writer added a field.
          int probeV2 = w.register(Topics.PROBE_RESULTS.name(), ProbeResult.getClassSchema());
          int recordSetV2 = w.register(Topics.RESOURCE_RECORD_SETS.name(), ResourceRecordSet.getClassSchema());
          int serviceV2 = w.register(Topics.BACKEND_SERVICES.name(), BackendService.getClassSchema());
          registry.close();

          for (int i = 0; i < 3; i++) {
            w.sendAs(probeV2, Topics.PROBE_RESULTS.name(), "10.0.0.1", probe(null, "10.0.0.1", false));
            w.sendAs(probeV2, Topics.PROBE_RESULTS.name(), "10.0.0.2", probe(null, "10.0.0.2", true));
            w.sendAs(probeV2, Topics.PROBE_RESULTS.name(), "orders", probe("orders", "vm-1", false));
          }
          w.sendAs(recordSetV2, Topics.RESOURCE_RECORD_SETS.name(), ZONE + "/www.example.internal./A",
              ResourceRecordSet.newBuilder().setZone(ZONE).setName("www.example.internal.").setType("A").setTtl(5)
                  .setRrdatas(List.of("10.1.0.7")).build());
          w.sendAs(serviceV2, Topics.BACKEND_SERVICES.name(), "orders", service("vm-1", "vm-2", "vm-3"));
          producer.flush();
          Thread.sleep(30_000);
          assertThat(answers(resolver, "api.example.internal."))
              .as("the last snapshot answers while the registry is away").isEqualTo(Set.of("10.0.0.1", "10.0.0.2"));

          registry = SchemaRegistry.start(RegistrySettings.from(rp));
          states = awaitStates(kafka, writer, m -> m.get("EXTERNAL_ENDPOINT/10.0.0.1") == HealthStatus.UNHEALTHY
              && m.get("ENDPOINT/orders/vm-1") == HealthStatus.UNHEALTHY && m.containsKey("BACKEND_SERVICE/orders"));
          await(() -> answers(resolver, "api.example.internal.").equals(Set.of("10.0.0.2")), "only 10.0.0.2 answered");
          await(() -> answers(resolver, "www.example.internal.").equals(Set.of("10.1.0.7")), "the new record set");
          assertThat(states.get("EXTERNAL_ENDPOINT/10.0.0.2")).isEqualTo(HealthStatus.HEALTHY);
          HealthState service = latestState(kafka, writer, EntityKind.BACKEND_SERVICE, "orders");
          assertThat(service.getHealthyCount() + service.getUnhealthyCount() + service.getUnknownCount())
              .as("the service change written during the outage is in force").isEqualTo(3);

          assertThat(Topics.all().stream().filter(t -> t.name().endsWith("dlq"))
              .flatMap(t -> readNow(kafka, t.name()).stream()).toList()).as("dead letters").isEmpty();
          assertThat(edgeMeters.get("healthmesh.edge.records.skipped").functionCounter().count()).isZero();
          assertThat(topologyMeters.get("healthmesh.registry.unavailable").functionCounter().count()).isPositive();
          assertThat(edgeMeters.get("healthmesh.registry.unavailable").functionCounter().count()).isPositive();
        } finally {
          registry.close();
        }
      }
    }
  }

  /** Writes values framed like any Confluent serializer does, with this build's schema or a newer one. */
  private record Writer(KafkaProducer<String, byte[]> producer, SchemaRegistryClient registry) {
    void send(String topic, String key, SpecificRecord value) throws Exception {
      producer.send(new ProducerRecord<>(topic, key, new AvroSerializer<SpecificRecord>(registry, false)
          .serialize(topic, value))).get();
    }

    /** Registers {@code schema} with one field more, as a newer writer would; returns its id. */
    int register(String topic, Schema schema) {
      return registry.register(topic + "-value", withExtraField(schema));
    }

    /** {@code value} as a writer with the schema of {@code id} (this one plus a field) writes it. */
    void sendAs(int id, String topic, String key, SpecificRecord value) throws IOException {
      Schema newer = registry.byId(id); // cached by this client at registration: no registry call
      ByteArrayOutputStream plain = new ByteArrayOutputStream();
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(plain, null);
      new SpecificDatumWriter<SpecificRecord>(value.getSchema()).write(value, encoder);
      encoder.flush();
      GenericRecord upgraded = new GenericDatumReader<GenericRecord>(value.getSchema(), newer)
          .read(null, DecoderFactory.get().binaryDecoder(plain.toByteArray(), null));
      ByteArrayOutputStream framed = new ByteArrayOutputStream();
      byte[] header = new byte[WireFormat.HEADER_SIZE];
      WireFormat.writeHeader(header, id);
      framed.write(header);
      encoder = EncoderFactory.get().binaryEncoder(framed, null);
      new GenericDatumWriter<GenericRecord>(newer).write(upgraded, encoder);
      encoder.flush();
      producer.send(new ProducerRecord<>(topic, key, framed.toByteArray()));
    }

    private static Schema withExtraField(Schema schema) {
      List<Schema.Field> fields = new ArrayList<>();
      for (Schema.Field f : schema.getFields()) {
        fields.add(new Schema.Field(f, f.schema()));
      }
      fields.add(new Schema.Field("addedLater", Schema.create(Schema.Type.STRING), "A field of a newer writer.", ""));
      return Schema.createRecord(schema.getName(), schema.getDoc(), schema.getNamespace(), false, fields);
    }
  }

  private static ProbeResult probe(String service, String endpoint, boolean success) {
    return ProbeResult.newBuilder().setBackendService(service).setEndpointId(endpoint).setSuccess(success)
        .setEventTime(Instant.now()).setProber("registry-outage-it").build();
  }

  private static BackendService service(String... endpoints) {
    List<Endpoint> list = new ArrayList<>();
    for (int i = 0; i < endpoints.length; i++) {
      list.add(Endpoint.newBuilder().setId(endpoints[i]).setIpAddress("10.2.0." + (i + 1)).build());
    }
    return BackendService.newBuilder().setName("orders").setRegion("us-east1")
        .setLoadBalancingScheme(LoadBalancingScheme.INTERNAL_MANAGED).setBackendType(BackendType.GCE_VM_IP_PORT)
        .setHealthCheck(HealthCheckSpec.newBuilder().build()).setEndpoints(list).build();
  }

  private static ResourceRecordSet wrr(String name, List<String> addresses) {
    List<WrrItem> items = addresses.stream().map(a -> WrrItem.newBuilder().setWeight(1).setRrdatas(List.of(a))
        .setHealthCheckedTargets(HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(a)).build()).build())
        .toList();
    return ResourceRecordSet.newBuilder().setZone(ZONE).setName(name).setType("A").setTtl(5)
        .setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(items).build()).build())
        .build();
  }

  private static StreamsSettings streamsSettings(EmbeddedKafka kafka, String url, Path dir) {
    Properties p = new Properties();
    p.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    p.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, url);
    p.setProperty(StreamsSettings.APPLICATION_ID, "registry-outage-it");
    p.setProperty(StreamsSettings.STATE_DIR, dir.resolve("state").toString());
    return StreamsSettings.from(p);
  }

  private static EdgeSettings edgeSettings(EmbeddedKafka kafka, String url) {
    Properties p = new Properties();
    p.setProperty(EdgeSettings.REGION, "us-east1");
    p.setProperty(EdgeSettings.PORT, "0");
    p.setProperty(EdgeSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    p.setProperty(EdgeSettings.SCHEMA_REGISTRY_URL, url);
    return EdgeSettings.from(p);
  }

  /** The addresses of 30 answers: WRR picks an item per query. */
  private static Set<String> answers(SimpleResolver resolver, String name) {
    Set<String> seen = new HashSet<>();
    try {
      for (int i = 0; i < 30; i++) {
        Message reply = resolver.send(Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN)));
        for (Record r : reply.getSection(Section.ANSWER)) {
          if (r instanceof ARecord a) {
            seen.add(a.getAddress().getHostAddress());
          }
        }
      }
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return seen;
  }

  private static Map<String, HealthStatus> awaitStates(EmbeddedKafka kafka, SchemaRegistryClient registry,
      java.util.function.Predicate<Map<String, HealthStatus>> done) {
    return org.awaitility.Awaitility.await("health states as expected").atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(300)).until(() -> {
          Map<String, HealthStatus> latest = new HashMap<>();
          for (Map.Entry<EntityKey, HealthState> e : states(kafka, registry).entrySet()) {
            latest.put(e.getKey().getKind() + "/" + e.getKey().getName(), e.getValue().getStatus());
          }
          return latest;
        }, done);
  }

  private static HealthState latestState(EmbeddedKafka kafka, SchemaRegistryClient registry, EntityKind kind,
      String name) {
    return states(kafka, registry).get(new EntityKey(kind, name));
  }

  private static Map<EntityKey, HealthState> states(EmbeddedKafka kafka, SchemaRegistryClient registry) {
    return Stack.healthStates(kafka.bootstrapServers(), registry);
  }

  private static List<ConsumerRecord<byte[], byte[]>> readNow(EmbeddedKafka kafka, String topic) {
    return Stack.readNow(kafka.bootstrapServers(), topic);
  }

  private static void await(BooleanSupplier ok, String what) {
    org.awaitility.Awaitility.await(what).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
        .until(ok::getAsBoolean);
  }
}
