package io.healthmesh.streams;

import io.healthmesh.observability.MetricsServer;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.settings.Launcher;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/** Runs the topology as its own process; keys are those of {@link StreamsSettings}. */
public final class StreamsMain {
  private StreamsMain() {}

  public static void main(String[] args) throws Exception {
    Launcher.run(args, "streams-app", StreamsSettings::from, settings -> {
      PrometheusMeterRegistry meters = MetricsServer.newRegistry("topology");
      AtomicReference<HealthStreamsApp> app = new AtomicReference<>();
      // served from the start, so that /health/ready says "not ready" while the topology starts
      MetricsServer metrics = settings.metrics().start(meters,
          () -> app.get() == null ? "the topology is starting" : app.get().notReady());
      app.set(HealthStreamsApp.start(settings, RestSchemaRegistryClient.of(settings.schemaRegistryUrl(), settings.streamsOverrides()), meters,
          Duration.ofMinutes(2), metrics));
      return new Launcher.Started(() -> {
        app.get().close();
        metrics.close();
      }, "health topology " + settings.applicationId() + " running against " + settings.bootstrapServers()
          + "; metrics on " + metrics.url() + ", status queries on " + metrics.url().replace("/metrics", "/v1/status"));
    });
  }
}
