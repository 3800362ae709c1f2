package io.healthmesh.haproxy;

import io.healthmesh.observability.MetricsServer;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.settings.Launcher;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** Runs the HAProxy adapter as its own process; keys are those of {@link HaproxySettings}. */
public final class HaproxyMain {
  private HaproxyMain() {}

  public static void main(String[] args) throws Exception {
    Launcher.run(args, "haproxy-adapter", HaproxySettings::from, settings -> {
      PrometheusMeterRegistry meters = MetricsServer.newRegistry("haproxy", "haproxy", settings.runtimeApi());
      HaproxyAdapter adapter = HaproxyAdapter.start(settings,
          RestSchemaRegistryClient.of(settings.schemaRegistryUrl(), settings.kafkaProperties()), meters);
      MetricsServer metrics = settings.metrics().start(meters, adapter::notReady);
      return new Launcher.Started(() -> {
        adapter.close();
        metrics.close();
      }, "haproxy adapter driving " + settings.runtimeApi() + "; metrics on " + metrics.url());
    });
  }
}
