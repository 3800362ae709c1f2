package io.healthmesh.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.kafka.embedded.TestCa;
import io.healthmesh.schemas.RegistryClientSettings;
import io.healthmesh.schemas.RegistryException;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry over HTTPS with HTTP basic authentication (R-SEC-4): anonymous callers get 401, a
 * read-only user 403 on writes; the serde's client and Confluent's own Python client register and
 * read with credentials and the test CA.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SecuredRegistryIT {
  private static final String BODY = "{\"schema\":\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"Probe\\\","
      + "\\\"fields\\\":[{\\\"name\\\":\\\"ok\\\",\\\"type\\\":\\\"boolean\\\"}]}\"}";
  @TempDir
  static Path dir;
  private static TestCa tls;
  private static EmbeddedKafka kafka;
  private static SchemaRegistry registry;
  private static HttpClient http;

  @BeforeAll
  static void start() throws Exception {
    tls = TestCa.make(dir);
    kafka = EmbeddedKafka.builder().createTopics(false).start();
    Path users = Files.writeString(dir.resolve("users"), """
        # name: password, role
        writer: writer-secret, write
        reader: reader-secret, read
        """);
    Properties p = new Properties();
    p.setProperty(RegistrySettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    p.setProperty(RegistrySettings.PORT, "0");
    p.setProperty(RegistrySettings.AUTHENTICATION_METHOD, "BASIC");
    p.setProperty(RegistrySettings.USERS_FILE, users.toString());
    p.setProperty(RegistrySettings.KEYSTORE_LOCATION, tls.keystore().toString());
    p.setProperty(RegistrySettings.KEYSTORE_PASSWORD, tls.password());
    registry = SchemaRegistry.start(RegistrySettings.from(p));
    http = HttpClient.newBuilder().sslContext(RegistryClientSettings.from(registry.url(), Map.of(
        RegistryClientSettings.TRUSTSTORE_LOCATION, tls.truststore().toString(),
        RegistryClientSettings.TRUSTSTORE_PASSWORD, tls.password())).tls()).build();
  }

  @AfterAll
  static void stop() {
    if (registry != null) {
      registry.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void servesHttps_andRefusesAnonymousCallers_R_SEC_4() throws Exception {
    assertThat(registry.url()).startsWith("https://127.0.0.1:");
    HttpResponse<String> write = request("POST", "/subjects/anonymous-value/versions", BODY, null);
    assertThat(write.statusCode()).isEqualTo(401);
    assertThat(write.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"healthmesh-schema-registry\"");
    assertThat(write.body()).contains("\"error_code\":401");
    assertThat(request("GET", "/subjects", null, null).statusCode()).isEqualTo(401);
    assertThat(request("GET", "/subjects", null, "writer:wrong").statusCode()).isEqualTo(401);
    assertThat(request("GET", "/subjects", null, "nobody:writer-secret").statusCode()).isEqualTo(401);
  }

  @Test
  void letsAReadOnlyUserReadButNotWrite_R_SEC_4() throws Exception {
    assertThat(request("POST", "/subjects/read-only-value/versions", BODY, "writer:writer-secret").statusCode())
        .isEqualTo(200);
    HttpResponse<String> write = request("POST", "/subjects/read-only-value/versions", BODY.replace("Probe", "Other"),
        "reader:reader-secret");
    assertThat(write.statusCode()).isEqualTo(403);
    assertThat(write.body()).contains("40301").contains("reader");
    assertThat(request("PUT", "/config", "{\"compatibility\":\"NONE\"}", "reader:reader-secret").statusCode())
        .isEqualTo(403);
    assertThat(request("GET", "/subjects", null, "reader:reader-secret").body()).contains("read-only-value");
    assertThat(request("POST", "/subjects/read-only-value", BODY, "reader:reader-secret").statusCode())
        .as("a lookup is a read").isEqualTo(200);
  }

  @Test
  void theSerdesClientRegistersAndReads_withConfluentsClientSettings() {
    Map<String, Object> settings = Map.of(RegistryClientSettings.CREDENTIALS_SOURCE, "USER_INFO",
        RegistryClientSettings.USER_INFO, "writer:writer-secret",
        RegistryClientSettings.TRUSTSTORE_LOCATION, tls.truststore().toString(),
        RegistryClientSettings.TRUSTSTORE_PASSWORD, tls.password());
    Schema schema = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Java\",\"fields\":[]}");
    int id = RestSchemaRegistryClient.of(registry.url(), settings).register("java-value", schema);
    assertThat(RestSchemaRegistryClient.of(registry.url(), Map.of("schema.registry.basic.auth.user.info",
        "reader:reader-secret", RegistryClientSettings.TRUSTSTORE_LOCATION, tls.truststore().toString(),
        RegistryClientSettings.TRUSTSTORE_PASSWORD, tls.password())).byId(id)).isEqualTo(schema);
    assertThatThrownBy(() -> RestSchemaRegistryClient.of(registry.url(), Map.of(
        RegistryClientSettings.TRUSTSTORE_LOCATION, tls.truststore().toString(),
        RegistryClientSettings.TRUSTSTORE_PASSWORD, tls.password())).byId(id))
        .isInstanceOf(RegistryException.class).hasMessageContaining("HTTP 401")
        .matches(e -> !((RegistryException) e).isTransient(), "not retried as an outage");
  }

  @Test
  void confluentsPythonClientRegistersAndReads_withCredentialsAndTheCa() throws Exception {
    String script = """
        import sys
        from confluent_kafka.schema_registry import SchemaRegistryClient, Schema
        url, user, ca = sys.argv[1:4]
        client = SchemaRegistryClient({'url': url, 'basic.auth.user.info': user, 'ssl.ca.location': ca})
        schema = Schema('{"type":"record","name":"Python","fields":[{"name":"x","type":"int"}]}', 'AVRO')
        schema_id = client.register_schema('python-value', schema)
        print(schema_id, client.get_schema(schema_id).schema_str)
        """;
    List<String> command = List.of("/usr/bin/python3", "-c", script, registry.url(), "writer:writer-secret",
        tls.caCertificate().toString());
    Process python = python(command);
    String out = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(python.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(python.exitValue()).as(out).isZero();
    assertThat(out).contains("\"Python\"");
    assertThat(request("GET", "/subjects", null, "reader:reader-secret").body()).contains("python-value");

    List<String> anonymous = List.of("/usr/bin/python3", "-c", script.replace("'basic.auth.user.info': user, ", ""),
        registry.url(), "-", tls.caCertificate().toString());
    Process refused = python(anonymous);
    String refusal = new String(refused.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(refused.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(refused.exitValue()).isNotZero();
    assertThat(refusal).contains("401");
  }

  /**
   * requests, under Confluent's client, lets REQUESTS_CA_BUNDLE and CURL_CA_BUNDLE override the
   * ssl.ca.location it was given (its environment settings win over a session's verify); a machine
   * that sets them must not decide which CA the client trusts here.
   */
  private static Process python(List<String> command) throws java.io.IOException {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().remove("REQUESTS_CA_BUNDLE");
    builder.environment().remove("CURL_CA_BUNDLE");
    return builder.start();
  }

  private static HttpResponse<String> request(String method, String path, String body, String user) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(registry.url() + path))
        .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (user != null) {
      request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8)));
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
