package io.healthmesh.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.healthmesh.observability.HttpServers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The Confluent REST subset over the JDK's HTTP server. Routing only; the rules live in the service. */
final class RegistryHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RegistryHttpServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
  private static final RegistryUsers.Caller ANYONE = new RegistryUsers.Caller("anyone", true);

  private final RegistryService service;
  /** Larger than any schema the store takes (see {@code SchemaLog.MAX_RECORD_BYTES}), so the store says why. */
  private static final int MAX_BODY = 8 << 20;
  private final HttpServer server;
  private final List<Route> routes = new ArrayList<>();
  private final RegistryUsers users;
  final AtomicLong requests = new AtomicLong();
  final AtomicLong errors = new AtomicLong();

  /**
   * @param users who may read and write, or null when anyone may
   * @param tls serves HTTPS with it, or HTTP when null
   */
  RegistryHttpServer(RegistryService service, String host, int port, RegistryUsers users, SSLContext tls)
      throws IOException {
    this.service = service;
    this.users = users;
    // Every client of every serde asks here at start-up; slow ones are cut off after 5 s.
    this.server = HttpServers.create(host, port, 32, "schema-registry-http", tls);
    server.createContext("/", this::handle);
    defineRoutes();
  }

  void start() {
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private void defineRoutes() {
    route("GET", "/", (p, q, b) -> Map.of());
    route("GET", "/schemas/types", (p, q, b) -> List.of("AVRO"));
    route("GET", "/schemas/ids/(\\d+)", (p, q, b) -> Map.of("schema", service.schemaById(id(p.get(0)))));
    route("GET", "/schemas/ids/(\\d+)/schema", (p, q, b) -> JSON.readTree(service.schemaById(id(p.get(0)))));
    route("GET", "/schemas/ids/(\\d+)/versions", (p, q, b) -> service.subjectVersionsOf(id(p.get(0))));
    route("GET", "/subjects", (p, q, b) -> service.subjects());
    route("GET", "/subjects/([^/]+)/versions", (p, q, b) -> service.versions(p.get(0)));
    route("GET", "/subjects/([^/]+)/versions/([^/]+)", (p, q, b) -> describe(service.version(p.get(0), p.get(1))));
    route("GET", "/subjects/([^/]+)/versions/([^/]+)/schema",
        (p, q, b) -> JSON.readTree(service.version(p.get(0), p.get(1)).schema()));
    write("POST", "/subjects/([^/]+)/versions", (p, q, b) -> Map.of("id", service.register(p.get(0), schemaOf(b))));
    route("POST", "/subjects/([^/]+)", (p, q, b) -> describe(service.lookup(p.get(0), schemaOf(b))));
    route("POST", "/compatibility/subjects/([^/]+)/versions/([^/]+)", (p, q, b) -> {
      List<String> problems = service.compatibilityProblems(p.get(0), p.get(1), schemaOf(b));
      Map<String, Object> reply = new LinkedHashMap<>();
      reply.put("is_compatible", problems.isEmpty());
      if ("true".equals(q.get("verbose"))) {
        reply.put("messages", problems);
      }
      return reply;
    });
    route("GET", "/config", (p, q, b) -> Map.of("compatibilityLevel", service.globalLevel()));
    write("PUT", "/config", (p, q, b) -> Map.of("compatibility", service.setLevel(null, levelOf(b))));
    route("GET", "/config/([^/]+)", (p, q, b) -> Map.of("compatibilityLevel",
        service.subjectLevel(p.get(0), "true".equals(q.get("defaultToGlobal")))));
    write("PUT", "/config/([^/]+)", (p, q, b) -> Map.of("compatibility", service.setLevel(p.get(0), levelOf(b))));
    write("DELETE", "/config/([^/]+)", (p, q, b) -> Map.of("compatibilityLevel", service.deleteSubjectLevel(p.get(0))));
  }

  private void handle(HttpExchange exchange) throws IOException {
    requests.incrementAndGet();
    String method = exchange.getRequestMethod();
    String path = exchange.getRequestURI().getRawPath();
    try {
      RegistryUsers.Caller caller = caller(exchange);
      Object reply = dispatch(method, path, query(exchange.getRequestURI().getRawQuery()), caller, exchange);
      send(exchange, 200, JSON.writeValueAsBytes(reply));
    } catch (RegistryError e) {
      errors.incrementAndGet();
      drain(exchange);
      if (e.httpStatus == 401) {
        exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"healthmesh-schema-registry\"");
      }
      send(exchange, e.httpStatus, error(e.errorCode, e.getMessage()));
    } catch (RuntimeException | IOException e) {
      errors.incrementAndGet();
      LOG.error("{} {} failed", method, path, e);
      send(exchange, 500, error(50001, "Internal error: " + e));
    }
  }

  /** Who asks: anyone when the registry needs no authentication; otherwise the user the request proves. */
  private RegistryUsers.Caller caller(HttpExchange exchange) {
    if (users == null) {
      return ANYONE;
    }
    return users.authenticate(exchange.getRequestHeaders().getFirst("Authorization"))
        .orElseThrow(RegistryError::unauthorized);
  }

  private Object dispatch(String method, String path, Map<String, String> query, RegistryUsers.Caller caller,
      HttpExchange exchange) throws IOException {
    boolean pathMatched = false;
    for (Route route : routes) {
      Matcher m = route.pattern.matcher(path);
      if (m.matches()) {
        pathMatched = true;
        if (route.method.equals(method)) {
          if (route.write && !caller.mayWrite()) {
            throw RegistryError.forbidden(caller.name(), method, path);
          }
          return route.handler.handle(params(m), query, readBody(exchange));
        }
      }
    }
    throw pathMatched ? RegistryError.methodNotAllowed(method) : RegistryError.notFound(path);
  }

  private static List<String> params(Matcher m) {
    List<String> params = new ArrayList<>();
    for (int i = 1; i <= m.groupCount(); i++) {
      params.add(URLDecoder.decode(m.group(i), StandardCharsets.UTF_8));
    }
    return params;
  }

  private void route(String method, String regex, Handler handler) {
    routes.add(new Route(method, Pattern.compile(regex), handler, false));
  }

  /** A route that changes the registry: only callers with the role write may take it. */
  private void write(String method, String regex, Handler handler) {
    routes.add(new Route(method, Pattern.compile(regex), handler, true));
  }

  private static int id(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw RegistryError.schemaNotFound("id " + text);
    }
  }

  private static String schemaOf(JsonNode body) {
    String type = body.path("schemaType").asText("AVRO");
    if (!"AVRO".equals(type)) {
      throw RegistryError.invalidSchema("schemaType " + type + " is not supported; only AVRO");
    }
    if (!body.path("references").isMissingNode() && body.path("references").size() > 0) {
      throw RegistryError.invalidSchema("schema references are not supported");
    }
    JsonNode schema = body.get("schema");
    if (schema == null || !schema.isTextual()) {
      throw RegistryError.invalidSchema("the request has no \"schema\" string");
    }
    return schema.asText();
  }

  private static String levelOf(JsonNode body) {
    JsonNode level = body.get("compatibility");
    if (level == null || !level.isTextual()) {
      throw RegistryError.invalidCompatibility(String.valueOf(level));
    }
    return level.asText();
  }

  private static Map<String, Object> describe(SchemaStore.Version v) {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("subject", v.subject());
    reply.put("version", v.version());
    reply.put("id", v.id());
    reply.put("schema", v.schema());
    return reply;
  }

  private static JsonNode readBody(HttpExchange exchange) {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] bytes = in.readNBytes(MAX_BODY + 1);
      if (bytes.length > MAX_BODY) {
        throw RegistryError.invalidSchema("the request body is larger than " + MAX_BODY + " bytes");
      }
      if (bytes.length == 0) {
        return JSON.createObjectNode();
      }
      return JSON.readTree(bytes);
    } catch (IOException e) {
      throw RegistryError.badRequest("request body is not JSON: " + e.getMessage());
    }
  }

  /**
   * Reads what is left of a refused request's body (up to the largest accepted): a reply sent
   * while the client still writes leaves the connection half used, and a client that sends its
   * next request on it waits for an answer that never comes.
   */
  private static void drain(HttpExchange exchange) {
    try (InputStream in = exchange.getRequestBody()) {
      in.readNBytes(MAX_BODY + 1);
    } catch (IOException e) {
      // the client went away; the reply will find that out
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> query = new LinkedHashMap<>();
    if (raw == null) {
      return query;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      query.put(key, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return query;
  }

  private static byte[] error(int code, String message) {
    return JSON.createObjectNode().put("error_code", code).put("message", message).toString()
        .getBytes(StandardCharsets.UTF_8);
  }

  private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    HttpServers.stop(server);
  }

  @FunctionalInterface
  private interface Handler {
    Object handle(List<String> path, Map<String, String> query, JsonNode body) throws IOException;
  }

  private record Route(String method, Pattern pattern, Handler handler, boolean write) {}
}
