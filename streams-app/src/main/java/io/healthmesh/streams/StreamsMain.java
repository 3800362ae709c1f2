package io.healthmesh.streams;

import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.settings.Launcher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;

/** Runs the topology as its own process; keys are those of {@link StreamsSettings}. */
public final class StreamsMain {
  private StreamsMain() {}

  public static void main(String[] args) throws Exception {
    Launcher.run(args, "streams-app", StreamsSettings::from, settings -> new Launcher.Started(
        HealthStreamsApp.start(settings, new RestSchemaRegistryClient(settings.schemaRegistryUrl()),
            new SimpleMeterRegistry(), Duration.ofMinutes(2)),
        "health topology " + settings.applicationId() + " running against " + settings.bootstrapServers()));
  }
}
