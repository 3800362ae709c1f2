package io.healthmesh.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.schemas.RegistryException;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The registry over HTTP, against a real broker. Each test uses its own subjects. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SchemaRegistryIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Schema RESTART_V2 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Restart\","
      + "\"fields\":[{\"name\":\"x\",\"type\":\"string\"},{\"name\":\"y\",\"type\":\"string\",\"default\":\"\"}]}");
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void startKafka() {
    kafka = EmbeddedKafka.builder().createTopics(false).start();
  }

  @AfterAll
  static void stopKafka() {
    kafka.close();
  }

  @Test
  void givesOneIdPerSchema_whenRegisteredTwiceOrUnderAnotherSubjectOrReformatted() {
    try (SchemaRegistry registry = start("_schemas_ids")) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      int first = client.register("ids-a-value", record("Ids", "a"));
      int again = client.register("ids-a-value", record("Ids", "a"));
      int otherSubject = client.register("ids-b-value", record("Ids", "a"));
      int other = client.register("ids-c-value", record("Ids", "b"));
      // Same schema, different whitespace and key order: same id (parsed, not textual, equality).
      String reformatted = "{ \"fields\": [ {\"type\":\"string\", \"name\":\"a\"} ],\n \"name\": \"Ids\", \"type\": \"record\" }";
      JsonNode viaHttp = post(registry, "/subjects/ids-d-value/versions", Map.of("schema", reformatted));

      assertThat(again).isEqualTo(first);
      assertThat(otherSubject).isEqualTo(first);
      assertThat(other).isNotEqualTo(first);
      assertThat(viaHttp.path("id").asInt()).isEqualTo(first);
      assertThat(client.latest("ids-b-value").version()).isEqualTo(1);
      assertThat(client.byId(first)).isEqualTo(record("Ids", "a"));
      assertThat(client.idOf("ids-a-value", record("Ids", "a"))).isEqualTo(first);
    }
  }

  @Test
  void refusesIncompatibleSchemaWith409_whenSubjectIsBackward() throws Exception {
    try (SchemaRegistry registry = start("_schemas_compat")) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      client.register("compat-value", record("Compat", "a"));
      Schema requiredNewField = new Schema.Parser().parse(
          "{\"type\":\"record\",\"name\":\"Compat\",\"fields\":[{\"name\":\"a\",\"type\":\"string\"},{\"name\":\"b\",\"type\":\"int\"}]}");

      assertThat(client.isCompatible("compat-value", requiredNewField)).isFalse();
      HttpResponse<String> refused = send(registry, "POST", "/subjects/compat-value/versions",
          Map.of("schema", requiredNewField.toString()));
      assertThat(refused.statusCode()).isEqualTo(409);
      JsonNode body = JSON.readTree(refused.body());
      assertThat(body.path("error_code").asInt()).isEqualTo(409);
      assertThat(body.path("message").asText()).contains("incompatible").contains("READER_FIELD_MISSING_DEFAULT_VALUE");
      JsonNode verbose = post(registry, "/compatibility/subjects/compat-value/versions/latest?verbose=true",
          Map.of("schema", requiredNewField.toString()));
      assertThat(verbose.path("messages")).isNotEmpty();

      // Per-subject level: NONE lets it through, other subjects keep the global BACKWARD.
      client.setCompatibility("compat-value", "NONE");
      assertThat(client.compatibility("compat-value")).isEqualTo("NONE");
      assertThat(client.compatibility(null)).isEqualTo("BACKWARD");
      assertThat(client.register("compat-value", requiredNewField)).isPositive();
      assertThat(client.latest("compat-value").version()).isEqualTo(2);
    }
  }

  @Test
  void answersConfluentErrorCodes_whenThingsAreMissingOrInvalid() throws Exception {
    try (SchemaRegistry registry = start("_schemas_errors")) {
      assertError(send(registry, "GET", "/subjects/nope-value/versions", null), 404, 40401);
      assertError(send(registry, "GET", "/schemas/ids/9999", null), 404, 40403);
      assertError(send(registry, "POST", "/subjects/bad-value/versions", Map.of("schema", "{\"type\":\"recrd\"}")), 422, 42201);
      assertError(send(registry, "POST", "/subjects/bad-value/versions", Map.of("schema", "{}", "schemaType", "PROTOBUF")), 422, 42201);
      post(registry, "/subjects/err-value/versions", Map.of("schema", "\"string\""));
      assertError(send(registry, "GET", "/subjects/err-value/versions/7", null), 404, 40402);
      assertError(send(registry, "GET", "/subjects/err-value/versions/zero", null), 422, 42202);
      assertError(send(registry, "POST", "/subjects/err-value", Map.of("schema", "\"int\"")), 404, 40403);
      assertError(send(registry, "GET", "/config/err-value", null), 404, 40408);
      assertError(send(registry, "PUT", "/config", Map.of("compatibility", "SIDEWAYS")), 422, 42203);
      assertError(send(registry, "GET", "/nowhere", null), 404, 404);
      assertThat(send(registry, "GET", "/config/err-value?defaultToGlobal=true", null).body()).contains("BACKWARD");
      assertThat(send(registry, "GET", "/subjects", null).body()).isEqualTo("[\"err-value\"]");
      assertThat(registry.errors()).isEqualTo(10);
    }
  }

  @Test
  void keepsIdsVersionsAndConfig_whenRestarted() {
    int id;
    try (SchemaRegistry registry = start("_schemas_restart")) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      client.register("restart-value", record("Restart", "x"));
      client.setCompatibility("restart-value", "FULL");
      id = client.register("restart-value", RESTART_V2);
    }
    try (SchemaRegistry registry = start("_schemas_restart")) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      assertThat(client.byId(id)).isEqualTo(RESTART_V2);
      assertThat(client.latest("restart-value").version()).isEqualTo(2);
      assertThat(client.compatibility("restart-value")).isEqualTo("FULL");
      assertThat(client.register("restart-value", RESTART_V2)).isEqualTo(id);
      // A new schema after the restart continues the id sequence instead of reusing an id.
      assertThat(client.register("restart-other-value", record("Other", "z"))).isEqualTo(id + 1);
    }
  }

  @Test
  void twoInstancesAgreeOnIds_whenRegisteringConcurrentlyOnOneTopic() throws Exception {
    try (SchemaRegistry left = start("_schemas_shared"); SchemaRegistry right = start("_schemas_shared")) {
      List<SchemaRegistryClient> clients = List.of(
          new RestSchemaRegistryClient(left.url()), new RestSchemaRegistryClient(right.url()));
      int schemas = 12;
      ExecutorService pool = Executors.newFixedThreadPool(4);
      CountDownLatch go = new CountDownLatch(1);
      Map<String, Set<Integer>> idsBySchema = new ConcurrentHashMap<>();
      List<Future<?>> calls = new ArrayList<>();
      // Every schema is registered through both instances at once, under two subjects.
      for (int i = 0; i < schemas; i++) {
        for (int c = 0; c < 2; c++) {
          Schema schema = record("Shared" + i, "f");
          SchemaRegistryClient client = clients.get(c);
          String subject = "shared-" + i + "-" + c + "-value";
          calls.add(pool.submit(() -> {
            go.await();
            int id = client.register(subject, schema);
            idsBySchema.computeIfAbsent(schema.getFullName(), k -> ConcurrentHashMap.newKeySet()).add(id);
            return null;
          }));
        }
      }
      go.countDown();
      for (Future<?> call : calls) {
        call.get();
      }
      pool.shutdown();

      assertThat(idsBySchema).hasSize(schemas);
      idsBySchema.forEach((name, ids) -> assertThat(ids).as(name).hasSize(1));
      Set<Integer> distinct = new HashSet<>();
      idsBySchema.values().forEach(distinct::addAll);
      assertThat(distinct).as("no id given to two schemas").hasSize(schemas);
      for (int id : distinct) {
        assertThat(clients.get(0).byId(id)).isEqualTo(clients.get(1).byId(id));
      }
    }
  }

  @Test
  void refusesToReadBeyondWhatItKnows_whenIdIsUnknownInBothInstances() {
    try (SchemaRegistry registry = start("_schemas_unknown")) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      assertThatThrownBy(() -> client.byId(42))
          .isInstanceOfSatisfying(RegistryException.class, e -> assertThat(e.errorCode()).isEqualTo(40403));
    }
  }

  @Test
  void refusesAnOversizedSchemaAtOnceWith422_andKeepsWorking() throws Exception {
    try (SchemaRegistry registry = start("_schemas_big")) {
      StringBuilder fields = new StringBuilder();
      for (int i = 0; fields.length() < 4_300_000; i++) {
        fields.append(i == 0 ? "" : ",").append("{\"name\":\"field_with_a_long_name_").append(i)
            .append("\",\"type\":\"string\",\"doc\":\"").append("x".repeat(100)).append("\"}");
      }
      String big = "{\"type\":\"record\",\"name\":\"Big\",\"fields\":[" + fields + "]}";
      long started = System.nanoTime();
      HttpResponse<String> response = send(registry, "POST", "/subjects/big-value/versions", Map.of("schema", big));
      long millis = (System.nanoTime() - started) / 1_000_000;

      assertError(response, 422, 42201);
      assertThat(response.body()).contains("bytes");
      assertThat(millis).as("refused at once, not after retries").isLessThan(5_000);
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      assertThat(client.register("small-value", record("Small", "a"))).isPositive();
    }
  }

  private static SchemaRegistry start(String topic) {
    java.util.Properties p = new java.util.Properties();
    p.setProperty(RegistrySettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    p.setProperty(RegistrySettings.PORT, "0");
    p.setProperty(RegistrySettings.TOPIC, topic);
    return SchemaRegistry.start(RegistrySettings.from(p));
  }

  private static Schema record(String name, String... fields) {
    StringBuilder f = new StringBuilder();
    for (String field : fields) {
      f.append(f.length() == 0 ? "" : ",").append("{\"name\":\"").append(field).append("\",\"type\":\"string\"}");
    }
    return new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"" + name + "\",\"fields\":[" + f + "]}");
  }

  private static void assertError(HttpResponse<String> response, int status, int code) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.path("error_code").asInt()).as(response.body()).isEqualTo(code);
    assertThat(body.path("message").asText()).isNotBlank();
  }

  private static JsonNode post(SchemaRegistry registry, String path, Object body) {
    try {
      HttpResponse<String> response = send(registry, "POST", path, body);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return JSON.readTree(response.body());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static HttpResponse<String> send(SchemaRegistry registry, String method, String path, Object body)
      throws Exception {
    HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body));
    return HTTP.send(HttpRequest.newBuilder(URI.create(registry.url() + path))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .method(method, publisher).build(), HttpResponse.BodyHandlers.ofString());
  }
}
