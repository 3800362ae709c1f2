package io.healthmesh.edge;

import io.healthmesh.observability.MetricsServer;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.settings.Launcher;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** Runs one edge as its own process; keys are those of {@link EdgeSettings}. */
public final class EdgeMain {
  private EdgeMain() {}

  public static void main(String[] args) throws Exception {
    Launcher.run(args, "dns-edge", EdgeSettings::from, settings -> {
      PrometheusMeterRegistry meters = registry(settings);
      EdgeApp edge = EdgeApp.start(settings, RestSchemaRegistryClient.of(settings.schemaRegistryUrl(), settings.kafkaProperties()), meters);
      MetricsServer metrics = settings.metrics().start(meters, edge::notReady);
      return new Launcher.Started(() -> {
        edge.close();
        metrics.close();
      }, "dns edge " + settings.name() + " (" + settings.region() + ") listening on " + settings.host() + ":"
          + edge.port() + " udp+tcp; metrics on " + metrics.url());
    });
  }

  /** A registry whose every series names this edge and its region, as dashboards filter by them. */
  public static PrometheusMeterRegistry registry(EdgeSettings settings) {
    return MetricsServer.newRegistry("edge", "edge", settings.name(), "region", settings.region());
  }
}
