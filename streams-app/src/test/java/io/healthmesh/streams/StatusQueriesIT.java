package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.CompositeStyle;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.HealthSource;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.observability.MetricsServer;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.query.StatusClient;
import io.healthmesh.streams.query.StatusQuery;
import io.healthmesh.streams.query.StatusRow;
import io.healthmesh.streams.query.StatusTable;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interactive queries (docs/architecture.md, "Status from the stores") on a real broker with two
 * topology instances: either instance answers for both, with what health-state says.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class StatusQueriesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int SERVICES = 6;
  /** More than a status answer looks up one by one: a status of all of them reads their record sets' uses at once. */
  private static final int EXTERNALS = 150;
  private static final int ENTITIES = SERVICES * 4 + SERVICES + 3 + 1 + EXTERNALS;
  /** The first record set (by key) checking every external endpoint, and a second checking a few of them. */
  private static final HealthCheckSpec FIRST_CHECK = HealthCheckSpec.newBuilder().setHealthyThreshold(3)
      .setUnhealthyThreshold(4).build();
  private static final HealthCheckSpec SECOND_CHECK = HealthCheckSpec.newBuilder().setHealthyThreshold(1)
      .setUnhealthyThreshold(1).build();

  @Test
  void eitherInstanceAnswersForAll_withWhatHealthStateSays_whenTwoShareTheTasks_R_OP_6(@TempDir Path dir) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(4).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      configure(kafka, client);
      try (MetricsServer httpA = MetricsServer.start("127.0.0.1", 0, MetricsServer.newRegistry("topology"), () -> true);
          MetricsServer httpB = MetricsServer.start("127.0.0.1", 0, MetricsServer.newRegistry("topology"), () -> true);
          HealthStreamsApp a = start(kafka, registry, client, dir.resolve("a"), httpA);
          HealthStreamsApp b = start(kafka, registry, client, dir.resolve("b"), httpB)) {
        probe(kafka, client);
        EntityKey composite = new EntityKey(EntityKind.COMPOSITE_HEALTH_CHECK, "chc");
        // 24 endpoints, 6 services, 3 sources, the composite, 150 external endpoints
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).until(() -> {
          Map<EntityKey, HealthState> now = published(kafka, client);
          // Probed again, as a prober would: a result that came before the topology knew the record
          // set checking its address was dead-lettered (R-EP-6) and judged nothing.
          probeExternals(kafka, client, externals().stream()
              .filter(address -> !now.containsKey(new EntityKey(EntityKind.EXTERNAL_ENDPOINT, address))).toList());
          return a.state() == KafkaStreams.State.RUNNING && b.state() == KafkaStreams.State.RUNNING
              && now.size() >= ENTITIES && now.get(composite) != null && get(httpA, "").code == 200
              && rows(get(httpA, "")).size() == now.size();
        });
        Map<EntityKey, HealthState> published = published(kafka, client);

        Map<EntityKey, StatusRow> fromA = rows(get(httpA, ""));
        Map<EntityKey, StatusRow> fromB = rows(get(httpB, ""));
        assertThat(fromA.keySet()).as("every published entity, whichever instance is asked")
            .isEqualTo(published.keySet()).isEqualTo(fromB.keySet());
        published.forEach((key, state) -> {
          HealthState answered = fromA.get(key).state();
          assertThat(answered.getStatus()).as(key + " state").isEqualTo(state.getStatus());
          assertThat(answered.getSince()).as(key + " since").isEqualTo(state.getSince());
          assertThat(answered.getVersion()).as(key + " version").isEqualTo(state.getVersion());
          assertThat(answered.getRegion()).as(key + " region").isEqualTo(state.getRegion());
          assertThat(answered.getLastKnownStatus()).as(key + " last known").isEqualTo(state.getLastKnownStatus());
        });

        // the table, as healthctl asks for it: every row worded as from the JSON, the other instance's part included
        for (MetricsServer asked : List.of(httpA, httpB)) {
          List<StatusTable.Row> table = new ArrayList<>();
          assertThat(StatusClient.table("http://127.0.0.1:" + asked.port(), new StatusQuery(Set.of(), null, Set.of()),
              Duration.ofSeconds(5), Duration.ofSeconds(30), table::add)).isEqualTo(2);
          assertThat(table).hasSameSizeAs(fromA.keySet());
          for (StatusTable.Row row : table) {
            StatusRow json = fromA.get(new EntityKey(row.kind(), row.name()));
            assertThat(row.cells()).as(row.name()).containsExactly(StatusTable.row(json).cells());
          }
        }
        HttpResponse<String> lines = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpB.port()
            + "/v1/status")).header("Accept", StatusTable.MEDIA_TYPE).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(lines.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith(StatusTable.MEDIA_TYPE));
        assertThat(lines.body().lines()).hasSize(1 + published.size() + 1).first()
            .isEqualTo(String.join("\t", StatusTable.COLUMNS));
        assertThat(lines.body()).endsWith("\n#end\t2\n");

        Map<EntityKey, StatusRow> localA = rows(get(httpA, "scope=local"));
        Map<EntityKey, StatusRow> localB = rows(get(httpB, "scope=local"));
        assertThat(localA).as("each instance holds a part").isNotEmpty().hasSizeLessThan(published.size());
        assertThat(localB).isNotEmpty();
        assertThat(localA.keySet()).doesNotContainAnyElementsOf(localB.keySet());

        assertThat(fromA.get(new EntityKey(EntityKind.ENDPOINT, "svc-1/vm-2")).thresholds()).isEqualTo("1 up/1 down");
        assertThat(fromB.get(new EntityKey(EntityKind.HEALTH_SOURCE, "src-1")).thresholds()).isEqualTo(">=50% and >=1");
        assertThat(fromB.get(new EntityKey(EntityKind.COMPOSITE_HEALTH_CHECK, "chc")).thresholds())
            .isEqualTo(">=2 of 3 +critical src-0");

        // each external endpoint judged by the first record set that checks it, read all at once or one by one
        for (String address : externals()) {
          EntityKey external = new EntityKey(EntityKind.EXTERNAL_ENDPOINT, address);
          assertThat(fromA.get(external).thresholds()).as(address).isEqualTo("3 up/4 down");
          assertThat(fromB.get(external).thresholds()).as(address).isEqualTo("3 up/4 down");
        }
        assertThat(rows(get(httpA, "kind=EXTERNAL_ENDPOINT&name=10.9.0.7")).values()).singleElement()
            .extracting(StatusRow::thresholds).isEqualTo("3 up/4 down");

        Map<EntityKey, StatusRow> narrow = rows(get(httpB, "kind=ENDPOINT&name=svc-1/*&state=UNHEALTHY"));
        assertThat(narrow.keySet()).containsExactly(new EntityKey(EntityKind.ENDPOINT, "svc-1/vm-1"));
        assertThat(rows(get(httpA, "kind=COMPOSITE_HEALTH_CHECK")).keySet())
            .containsExactly(new EntityKey(EntityKind.COMPOSITE_HEALTH_CHECK, "chc"));
        Answer bad = get(httpA, "kind=SERVICE");
        assertThat(bad.code).isEqualTo(400);
        assertThat(bad.body).contains("unknown kind 'SERVICE'");
      }
    }
  }

  private static HealthStreamsApp start(EmbeddedKafka kafka, SchemaRegistry registry, SchemaRegistryClient client,
      Path stateDir, MetricsServer http) {
    Properties p = new Properties();
    p.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    p.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, registry.url());
    p.setProperty(StreamsSettings.APPLICATION_ID, "status-queries-it");
    p.setProperty(StreamsSettings.STATE_DIR, stateDir.toString());
    return HealthStreamsApp.start(StreamsSettings.from(p), client, new SimpleMeterRegistry(), Duration.ofMinutes(1),
        http);
  }

  /** Services svc-0..5 (4 endpoints, thresholds 1), a source on each of the first three, a composite of them. */
  private static void configure(EmbeddedKafka kafka, SchemaRegistryClient client) throws Exception {
    for (int s = 0; s < SERVICES; s++) {
      send(kafka, client, Topics.BACKEND_SERVICES, "svc-" + s, Harness.service("svc-" + s, 4, 1, 1));
    }
    send(kafka, client, Topics.HEALTH_AGGREGATION_POLICIES, "half", HealthAggregationPolicy.newBuilder().setName("half")
        .setRegion(Harness.REGION).setHealthyPercentThreshold(50).setMinHealthyThreshold(1).build());
    for (int s = 0; s < 3; s++) {
      send(kafka, client, Topics.HEALTH_SOURCES, "src-" + s, HealthSource.newBuilder().setName("src-" + s)
          .setRegion(Harness.REGION).setBackendService("svc-" + s).setHealthAggregationPolicy("half").build());
    }
    send(kafka, client, Topics.COMPOSITE_HEALTH_CHECKS, "chc", CompositeHealthCheck.newBuilder().setName("chc")
        .setRegion(Harness.REGION).setHealthSources(List.of("src-0", "src-1", "src-2")).setHealthDestination("fr-orders")
        .setStyle(CompositeStyle.AT_LEAST_N).setMinHealthySources(2).setCriticalSources(List.of("src-0")).build());
    send(kafka, client, Topics.RESOURCE_RECORD_SETS, "internal/ext-a./A",
        Harness.wrrOverExternalEndpoints("ext-a.", externals(), FIRST_CHECK));
    send(kafka, client, Topics.RESOURCE_RECORD_SETS, "internal/ext-b./A",
        Harness.wrrOverExternalEndpoints("ext-b.", externals().subList(0, 10), SECOND_CHECK));
  }

  private static List<String> externals() {
    return IntStream.rangeClosed(1, EXTERNALS).mapToObj(i -> "10.9.0." + i).toList();
  }

  /** One result per service endpoint: svc-1's vm-1 fails, every other passes. */
  private static void probe(EmbeddedKafka kafka, SchemaRegistryClient client) throws Exception {
    try (KafkaProducer<String, ProbeResult> probes = BrokerIO.producer(kafka, Topics.PROBE_RESULTS, client)) {
      for (int s = 0; s < SERVICES; s++) {
        for (String vm : Harness.vms(1, 4)) {
          boolean fails = s == 1 && vm.equals("vm-1");
          probes.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), "svc-" + s, ProbeResult.newBuilder()
              .setBackendService("svc-" + s).setEndpointId(vm).setSuccess(!fails).setEventTime(Instant.now())
              .setProber("p1").build())).get();
        }
      }
    }
  }

  /** A passing result for each of {@code addresses}, as a prober of external endpoints sends it. */
  private static void probeExternals(EmbeddedKafka kafka, SchemaRegistryClient client, List<String> addresses)
      throws Exception {
    if (addresses.isEmpty()) {
      return;
    }
    try (KafkaProducer<String, ProbeResult> probes = BrokerIO.producer(kafka, Topics.PROBE_RESULTS, client)) {
      for (String address : addresses) {
        probes.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), address, ProbeResult.newBuilder()
            .setEndpointId(address).setSuccess(true).setEventTime(Instant.now()).setProber("p1").build()));
      }
      probes.flush();
    }
  }

  private static <V extends SpecificRecord> void send(EmbeddedKafka kafka, SchemaRegistryClient client,
      io.healthmesh.schemas.Topic<String, V> topic, String key, V value) throws Exception {
    try (KafkaProducer<String, V> producer = BrokerIO.producer(kafka, topic, client)) {
      producer.send(new ProducerRecord<>(topic.name(), key, value)).get();
    }
  }

  private static Map<EntityKey, HealthState> published(EmbeddedKafka kafka, SchemaRegistryClient client) {
    Map<EntityKey, HealthState> latest = new HashMap<>();
    BrokerIO.read(kafka, client, Topics.HEALTH_STATE, r -> {
      if (r.value() == null) {
        latest.remove(r.key());
      } else {
        latest.put(r.key(), r.value());
      }
    });
    return latest;
  }

  private record Answer(int code, String body) {}

  private static Answer get(MetricsServer server, String query) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
        + "/v1/status?" + query)).build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(response.statusCode(), response.body());
  }

  private static Map<EntityKey, StatusRow> rows(Answer answer) throws Exception {
    assertThat(answer.code).as(answer.body).isEqualTo(200);
    Map<EntityKey, StatusRow> rows = new HashMap<>();
    try (JsonParser json = JSON.getFactory().createParser(answer.body)) {
      json.nextToken(); // the answer
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        if (json.nextToken() == JsonToken.START_ARRAY) {
          while (json.nextToken() == JsonToken.START_OBJECT) {
            StatusRow row = StatusRow.read(json);
            rows.put(row.key(), row);
          }
        }
      }
    }
    return rows;
  }
}
