package io.healthmesh.edge;

import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.settings.SettingsReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.CountDownLatch;

/** Runs one edge as its own process: {@code EdgeMain [file.properties] [key=value ...]}; exit 2 on bad configuration. */
public final class EdgeMain {
  private EdgeMain() {}

  public static void main(String[] args) throws Exception {
    EdgeSettings settings;
    try {
      settings = EdgeSettings.from(SettingsReader.fromArgs(args));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println("usage: dns-edge [FILE.properties] [key=value ...]");
      System.exit(2);
      return;
    }
    EdgeApp edge = EdgeApp.start(settings, new RestSchemaRegistryClient(settings.schemaRegistryUrl()), new SimpleMeterRegistry());
    System.out.println("dns edge " + settings.name() + " (" + settings.region() + ") listening on " + settings.host() + ":"
        + edge.port() + " udp+tcp");
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      edge.close();
      stopped.countDown();
    }, "edge-shutdown"));
    stopped.await();
  }
}
