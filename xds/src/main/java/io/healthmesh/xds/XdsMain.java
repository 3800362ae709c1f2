package io.healthmesh.xds;

import io.healthmesh.observability.MetricsServer;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.settings.Launcher;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** Runs one xDS server as its own process; keys are those of {@link XdsSettings}. */
public final class XdsMain {
  private XdsMain() {}

  public static void main(String[] args) throws Exception {
    Launcher.run(args, "xds-server", XdsSettings::from, settings -> {
      PrometheusMeterRegistry meters = MetricsServer.newRegistry("xds", "xds", settings.name());
      XdsApp xds = XdsApp.start(settings, RestSchemaRegistryClient.of(settings.schemaRegistryUrl(), settings.kafkaProperties()), meters);
      MetricsServer metrics = settings.metrics().start(meters, xds::notReady);
      return new Launcher.Started(() -> {
        xds.close();
        metrics.close();
      }, "xds server " + settings.name() + " listening on " + settings.host() + ":" + xds.port()
          + " (ADS, CDS, EDS, LDS, RDS; state of the world and delta); metrics on " + metrics.url());
    });
  }
}
