package io.healthmesh.xds;

import io.healthmesh.observability.MetricsSettings;
import io.healthmesh.settings.SettingsReader;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/** The xDS server's configuration, validated once at start-up; keys in docs/components.md ("Load balancers"). */
public record XdsSettings(String name, String host, int port, String bootstrapServers, String schemaRegistryUrl,
    Duration snapshotMaxDelay, Duration statusInterval, Map<String, String> kafkaOverrides, MetricsSettings metrics) {

  public static final String NAME = "xds.name";
  public static final String HOST = "xds.host";
  public static final String PORT = "xds.port";
  public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
  public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
  public static final String SNAPSHOT_MAX_DELAY_MS = "xds.snapshot.max.delay.ms";
  public static final String STATUS_INTERVAL_MS = "xds.status.interval.ms";
  public static final String KAFKA_PREFIX = "kafka.";

  public XdsSettings {
    kafkaOverrides = Map.copyOf(kafkaOverrides);
  }

  public static XdsSettings from(Properties p) {
    SettingsReader read = new SettingsReader(p);
    String host = read.string(HOST, "127.0.0.1");
    int port = read.integer(PORT, 18000, 0, 65535);
    String name = read.string(NAME, "xds-" + host + "-" + port);
    String bootstrap = read.required(BOOTSTRAP_SERVERS, "host:port of a Kafka broker");
    String registry = read.required(SCHEMA_REGISTRY_URL, "base URL of the schema registry");
    int maxDelayMs = read.integer(SNAPSHOT_MAX_DELAY_MS, 20, 0, 10_000);
    int statusMs = read.integer(STATUS_INTERVAL_MS, 5_000, 0, 600_000);
    Map<String, String> kafka = read.prefixed(KAFKA_PREFIX);
    MetricsSettings metrics = MetricsSettings.from(read, 9406);
    read.check("xds-server");
    return new XdsSettings(name, host, port, bootstrap, registry, Duration.ofMillis(maxDelayMs),
        Duration.ofMillis(statusMs), kafka, metrics);
  }

  Map<String, Object> kafkaProperties() {
    Map<String, Object> props = new HashMap<>(kafkaOverrides);
    props.put("bootstrap.servers", bootstrapServers);
    return props;
  }
}
