package io.healthmesh.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;
import org.apache.avro.Schema;

/**
 * Client of the Confluent Schema Registry REST API. Schemas and ids are cached forever (ids are
 * immutable in the registry), so a serde makes no network call once its schemas are known.
 */
public final class RestSchemaRegistryClient implements SchemaRegistryClient {
  private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<URI> baseUrls;
  /** Null for plain HTTP or the JDK's default trust. */
  private final SSLSocketFactory tls;
  private final Duration timeout;
  private final String authorization;
  private final Map<Integer, Schema> schemasById = new ConcurrentHashMap<>();
  private final Map<String, Map<Schema, Integer>> idsBySubject = new ConcurrentHashMap<>();

  /** @param urls one or more registry base URLs, comma separated; tried in order. */
  public RestSchemaRegistryClient(String urls) {
    this(urls, Duration.ofSeconds(10));
  }

  public RestSchemaRegistryClient(String urls, Duration timeout) {
    this(urls, timeout, RegistryClientSettings.NONE);
  }

  /**
   * A client of a secured registry: Confluent's client keys ({@code basic.auth.*},
   * {@code schema.registry.ssl.truststore.*}) read from a Kafka client's or a serde's settings.
   */
  public static RestSchemaRegistryClient of(String urls, Map<String, ?> settings) {
    return new RestSchemaRegistryClient(urls, Duration.ofSeconds(10), RegistryClientSettings.from(urls, settings));
  }

  public RestSchemaRegistryClient(String urls, Duration timeout, RegistryClientSettings secured) {
    if (urls == null || urls.isBlank()) {
      throw new IllegalArgumentException("schema registry url is empty");
    }
    this.baseUrls = Arrays.stream(urls.split(","))
        .map(String::trim)
        .filter(u -> !u.isEmpty())
        .map(u -> withoutUserInfo(URI.create(u.endsWith("/") ? u : u + "/")))
        .toList();
    this.timeout = timeout;
    this.authorization = secured.authorization();
    // HttpURLConnection, not java.net.http: that client's selector thread sits in native code
    // until the JVM exits, and the JVM waits 300 ms at exit for such threads (VM_Exit), a third of
    // a short command's time (docs/benchmarks.md, #33).
    this.tls = secured.tls() == null ? null : secured.tls().getSocketFactory();
  }

  /** Credentials in a URL are sent as a header (basic.auth.credentials.source=URL), never in the request line. */
  private static URI withoutUserInfo(URI uri) {
    if (uri.getRawUserInfo() == null) {
      return uri;
    }
    return URI.create(uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
        + uri.getRawPath());
  }

  @Override
  public int register(String subject, Schema schema) {
    Integer cached = cachedId(subject, schema);
    if (cached != null) {
      return cached;
    }
    JsonNode reply = call("POST", "subjects/" + enc(subject) + "/versions", schemaBody(schema));
    int id = reply.path("id").asInt();
    remember(subject, schema, id);
    return id;
  }

  @Override
  public int idOf(String subject, Schema schema) {
    Integer cached = cachedId(subject, schema);
    if (cached != null) {
      return cached;
    }
    JsonNode reply = call("POST", "subjects/" + enc(subject), schemaBody(schema));
    int id = reply.path("id").asInt();
    remember(subject, schema, id);
    return id;
  }

  @Override
  public Schema byId(int id) {
    Schema cached = schemasById.get(id);
    if (cached != null) {
      return cached;
    }
    JsonNode reply = call("GET", "schemas/ids/" + id, null);
    Schema schema = parse(reply.path("schema").asText());
    schemasById.putIfAbsent(id, schema);
    return schema;
  }

  @Override
  public SchemaVersion latest(String subject) {
    JsonNode reply = call("GET", "subjects/" + enc(subject) + "/versions/latest", null);
    Schema schema = parse(reply.path("schema").asText());
    int id = reply.path("id").asInt();
    schemasById.putIfAbsent(id, schema);
    return new SchemaVersion(subject, reply.path("version").asInt(), id, schema);
  }

  @Override
  public boolean isCompatible(String subject, Schema schema) {
    JsonNode reply = call("POST", "compatibility/subjects/" + enc(subject) + "/versions/latest",
        schemaBody(schema));
    return reply.path("is_compatible").asBoolean(false);
  }

  @Override
  public String compatibility(String subject) {
    String path = subject == null ? "config" : "config/" + enc(subject);
    return call("GET", path, null).path("compatibilityLevel").asText();
  }

  @Override
  public void setCompatibility(String subject, String level) {
    String path = subject == null ? "config" : "config/" + enc(subject);
    ObjectNode body = JSON.createObjectNode().put("compatibility", level);
    call("PUT", path, body);
  }

  private Integer cachedId(String subject, Schema schema) {
    Map<Schema, Integer> ids = idsBySubject.get(subject);
    return ids == null ? null : ids.get(schema);
  }

  private void remember(String subject, Schema schema, int id) {
    idsBySubject.computeIfAbsent(subject, s -> new ConcurrentHashMap<>()).put(schema, id);
    schemasById.putIfAbsent(id, schema);
  }

  private static ObjectNode schemaBody(Schema schema) {
    return JSON.createObjectNode().put("schema", schema.toString());
  }

  private static Schema parse(String text) {
    return new Schema.Parser().parse(text);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private JsonNode call(String method, String path, JsonNode body) {
    IOException last = null;
    for (URI base : baseUrls) {
      try {
        return send(base.resolve(path), method, body);
      } catch (IOException e) {
        last = e;
      }
    }
    throw new RegistryException("schema registry " + baseUrls + " unreachable for " + method + " /"
        + path + ": " + last, last);
  }

  private JsonNode send(URI uri, String method, JsonNode body) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
    if (tls != null && connection instanceof HttpsURLConnection https) {
      https.setSSLSocketFactory(tls);
    }
    int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    connection.setConnectTimeout(millis);
    connection.setReadTimeout(millis);
    connection.setRequestMethod(method);
    connection.setRequestProperty("Accept", CONTENT_TYPE);
    connection.setRequestProperty("Content-Type", CONTENT_TYPE);
    if (authorization != null) {
      connection.setRequestProperty("Authorization", authorization);
    }
    if (body != null) {
      connection.setDoOutput(true);
      try (OutputStream out = connection.getOutputStream()) {
        out.write(JSON.writeValueAsBytes(body));
      }
    }
    int status = connection.getResponseCode();
    String text;
    // read to the end either way, so that the connection is kept for the next call
    try (InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream()) {
      text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    JsonNode reply = readJson(text);
    if (status >= 300) {
      int code = reply.path("error_code").asInt(status);
      String message = reply.path("message").asText(text);
      throw new RegistryException(status, code, method + " " + uri.getPath() + ": " + message);
    }
    return reply;
  }

  private static JsonNode readJson(String text) {
    if (text == null || text.isBlank()) {
      return JSON.createObjectNode();
    }
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      return JSON.createObjectNode().put("message", text);
    }
  }
}
