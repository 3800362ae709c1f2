package io.healthmesh.registry;

import io.healthmesh.settings.Launcher;

/** Standalone registry: keys are those of {@link RegistrySettings}; later ones win. */
public final class SchemaRegistryMain {
  private SchemaRegistryMain() {}

  public static void main(String[] args) throws Exception {
    Launcher.run(args, "schema-registry", RegistrySettings::from, settings -> {
      SchemaRegistry registry = SchemaRegistry.start(settings);
      return new Launcher.Started(registry, "schema registry listening on " + registry.url() + " (schemas in topic "
          + settings.topic() + " at " + settings.bootstrapServers() + ")");
    });
  }
}
