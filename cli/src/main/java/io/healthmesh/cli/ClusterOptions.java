package io.healthmesh.cli;

import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.RetryingRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import picocli.CommandLine.Option;

/**
 * Where the cluster is, shared by every command that talks to Kafka. The defaults reach a running
 * {@code healthctl demo}; SASL and TLS settings come from {@code --client-config}.
 */
public final class ClusterOptions {
  private static final Duration REGISTRY_WAIT = Duration.ofSeconds(15);
  /** Where {@code healthctl demo}'s broker listens, the default. */
  static final String DEFAULT_BOOTSTRAP = "127.0.0.1:9092";
  @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT,...", defaultValue = "${env:HEALTHMESH_BOOTSTRAP_SERVERS:-127.0.0.1:9092}",
      description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}; env HEALTHMESH_BOOTSTRAP_SERVERS).")
  String bootstrapServers;

  @Option(names = "--schema-registry-url", paramLabel = "URL", defaultValue = "${env:HEALTHMESH_SCHEMA_REGISTRY_URL:-http://127.0.0.1:8081}",
      description = "Schema registry URL (default: ${DEFAULT-VALUE}; env HEALTHMESH_SCHEMA_REGISTRY_URL).")
  String schemaRegistryUrl;

  @Option(names = "--client-config", paramLabel = "FILE",
      description = "Kafka client properties (security.protocol, sasl.*, ssl.* ...) passed to every client, and the"
          + " schema registry's client keys (basic.auth.user.info, schema.registry.ssl.truststore.*).")
  Path clientConfig;

  public String bootstrapServers() {
    return bootstrapServers;
  }

  public String schemaRegistryUrl() {
    return schemaRegistryUrl;
  }

  /** Client properties: the file's, then the bootstrap servers. */
  public Map<String, Object> client() {
    Map<String, Object> props = new HashMap<>(clientFile());
    props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return props;
  }

  /** The {@code --client-config} properties alone; empty without the flag. */
  public Map<String, String> clientFile() {
    Map<String, String> props = new HashMap<>();
    if (clientConfig != null) {
      Properties file = new Properties();
      try (InputStream in = Files.newInputStream(clientConfig)) {
        file.load(in);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read --client-config " + clientConfig + ": " + e.getMessage(), e);
      }
      file.stringPropertyNames().forEach(k -> props.put(k, file.getProperty(k)));
    }
    return props;
  }

  public SchemaRegistryClient registry() {
    // A short outage is waited out; a longer one fails the command (exit 1), never skips records.
    return new RetryingRegistryClient(RestSchemaRegistryClient.of(schemaRegistryUrl, clientFile()), REGISTRY_WAIT);
  }

  /** For tests and embedding: options pointing at the given cluster. */
  public static ClusterOptions of(String bootstrapServers, String schemaRegistryUrl) {
    ClusterOptions options = new ClusterOptions();
    options.bootstrapServers = bootstrapServers;
    options.schemaRegistryUrl = schemaRegistryUrl;
    return options;
  }
}
