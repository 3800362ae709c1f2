package io.healthmesh.edge;

import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.settings.Launcher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** Runs one edge as its own process; keys are those of {@link EdgeSettings}. */
public final class EdgeMain {
  private EdgeMain() {}

  public static void main(String[] args) throws Exception {
    Launcher.run(args, "dns-edge", EdgeSettings::from, settings -> {
      EdgeApp edge = EdgeApp.start(settings, new RestSchemaRegistryClient(settings.schemaRegistryUrl()),
          new SimpleMeterRegistry());
      return new Launcher.Started(edge, "dns edge " + settings.name() + " (" + settings.region() + ") listening on "
          + settings.host() + ":" + edge.port() + " udp+tcp");
    });
  }
}
