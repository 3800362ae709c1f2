package io.healthmesh.observability;

import io.healthmesh.settings.SettingsReader;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Where a process serves {@code /metrics} and {@code /health/*}: keys {@code metrics.host}
 * (default 127.0.0.1; 0.0.0.0 in a container) and {@code metrics.port} (0 picks a free port).
 */
public record MetricsSettings(String host, int port) {
  public static final String HOST = "metrics.host";
  public static final String PORT = "metrics.port";

  /** Reads the two keys, adding any problem to {@code read}. */
  public static MetricsSettings from(SettingsReader read, int defaultPort) {
    return new MetricsSettings(read.string(HOST, "127.0.0.1"), read.integer(PORT, defaultPort, 0, 65535));
  }

  public MetricsServer start(PrometheusMeterRegistry registry,
      BooleanSupplier ready) {
    return MetricsServer.start(host, port, registry, ready);
  }

  /** @param notReady why the component is not ready, or null when it is; the body of a 503 */
  public MetricsServer start(PrometheusMeterRegistry registry,
      Supplier<String> notReady) {
    return MetricsServer.start(host, port, registry, notReady);
  }
}
