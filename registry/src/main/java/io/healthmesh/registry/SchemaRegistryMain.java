package io.healthmesh.registry;

import io.healthmesh.observability.MetricsServer;
import io.healthmesh.settings.Launcher;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** Standalone registry: keys are those of {@link RegistrySettings}; later ones win. */
public final class SchemaRegistryMain {
  private SchemaRegistryMain() {}

  public static void main(String[] args) throws Exception {
    Launcher.run(args, "schema-registry", RegistrySettings::from, settings -> {
      SchemaRegistry registry = SchemaRegistry.start(settings);
      PrometheusMeterRegistry meters = MetricsServer.newRegistry("registry");
      registry.bindTo(meters);
      MetricsServer metrics = settings.metrics().start(meters, registry::healthy);
      return new Launcher.Started(() -> {
        registry.close();
        metrics.close();
      }, "schema registry listening on " + registry.url() + " (schemas in topic " + settings.topic() + " at "
          + settings.bootstrapServers() + "); metrics on " + metrics.url());
    });
  }
}
