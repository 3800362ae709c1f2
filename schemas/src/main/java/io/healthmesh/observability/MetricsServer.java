package io.healthmesh.observability;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What every healthmesh process serves for operators: {@code /metrics} in the Prometheus text
 * format, {@code /health/live} (200 while the process runs) and {@code /health/ready} (200 once it
 * does its job, 503 before and after).
 */
public final class MetricsServer implements AutoCloseable {
  private final HttpServer server;
  private final PrometheusMeterRegistry registry;

  private MetricsServer(HttpServer server, PrometheusMeterRegistry registry) {
    this.server = server;
    this.registry = registry;
  }

  /**
   * A registry with the JVM and process metrics every component reports; every series carries
   * {@code component} and the given tags (key, value, ...).
   */
  public static PrometheusMeterRegistry newRegistry(String component, String... tags) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().commonTags("component", component).commonTags(tags);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    return registry;
  }

  /** @param port 0 picks a free port */
  public static MetricsServer start(String host, int port, PrometheusMeterRegistry registry, BooleanSupplier ready) {
    return start(host, port, registry, () -> ready.getAsBoolean() ? null : "");
  }

  /** @param notReady why the component is not ready, or null when it is */
  public static MetricsServer start(String host, int port, PrometheusMeterRegistry registry,
      Supplier<String> notReady) {
    try {
      // Prometheus and a container's health check rarely overlap; the threads are for slow clients.
      HttpServer server = HttpServers.create(host, port, 8, "metrics-http");
      server.createContext("/metrics", exchange -> respond(exchange, 200,
          "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
      server.createContext("/health/live", exchange -> respond(exchange, 200, "text/plain", "live\n"));
      server.createContext("/health/ready", exchange -> {
        String why = notReady.get();
        respond(exchange, why == null ? 200 : 503, "text/plain",
            why == null ? "ready\n" : why.isEmpty() ? "not ready\n" : "not ready: " + why + "\n");
      });
      server.start();
      return new MetricsServer(server, registry);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /**
   * Serves {@code path} with {@code handler} beside the metrics, behind the same slow-client
   * limits (a component's API, such as the topology's status queries).
   */
  public void handle(String path, HttpHandler handler) {
    server.createContext(path, handler);
  }

  /** The address it listens on, as given: 0.0.0.0 for every interface. */
  public String host() {
    return server.getAddress().getHostString();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The {@code /metrics} URL. */
  public String url() {
    return "http://" + server.getAddress().getHostString() + ":" + port() + "/metrics";
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    if (exchange.getRequestMethod().equals("HEAD")) {
      exchange.sendResponseHeaders(status, -1);
    } else {
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
    exchange.close();
  }

  @Override
  public void close() {
    HttpServers.stop(server);
  }
}
