package io.healthmesh.streams;

import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.settings.SettingsReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the topology as its own process: {@code StreamsMain [file.properties] [key=value ...]}.
 * Exit code 2 for an invalid configuration.
 */
public final class StreamsMain {
  private StreamsMain() {}

  public static void main(String[] args) throws Exception {
    StreamsSettings settings;
    try {
      settings = StreamsSettings.from(SettingsReader.fromArgs(args));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println("usage: streams-app [FILE.properties] [key=value ...]");
      System.exit(2);
      return;
    }
    HealthStreamsApp app = HealthStreamsApp.start(settings, new RestSchemaRegistryClient(settings.schemaRegistryUrl()),
        new SimpleMeterRegistry(), Duration.ofMinutes(2));
    System.out.println("health topology " + settings.applicationId() + " running against " + settings.bootstrapServers());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      app.close();
      stopped.countDown();
    }, "streams-shutdown"));
    stopped.await();
  }
}
