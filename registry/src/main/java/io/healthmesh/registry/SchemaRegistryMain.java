package io.healthmesh.registry;

import io.healthmesh.settings.SettingsReader;
import java.util.concurrent.CountDownLatch;

/**
 * Standalone registry: {@code java -jar ... [file.properties] [key=value ...]}. Keys are those of
 * {@link RegistrySettings}; later ones win.
 */
public final class SchemaRegistryMain {
  private SchemaRegistryMain() {}

  public static void main(String[] args) throws Exception {
    RegistrySettings settings;
    try {
      settings = RegistrySettings.from(SettingsReader.fromArgs(args));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println("usage: schema-registry [FILE.properties] [key=value ...]");
      System.exit(2);
      return;
    }
    SchemaRegistry registry = SchemaRegistry.start(settings);
    System.out.println("schema registry listening on " + registry.url() + " (schemas in topic "
        + settings.topic() + " at " + settings.bootstrapServers() + ")");
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      registry.close();
      stopped.countDown();
    }, "schema-registry-shutdown"));
    stopped.await();
  }
}
