package io.healthmesh.haproxy;

import io.healthmesh.observability.MetricsSettings;
import io.healthmesh.settings.SettingsReader;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/** The HAProxy adapter's configuration, validated once at start-up; keys in docs/components.md ("Load balancers"). */
public record HaproxySettings(String runtimeApi, int weight, Duration interval, Duration timeout,
    String bootstrapServers, String schemaRegistryUrl, Map<String, String> kafkaOverrides, MetricsSettings metrics) {

  public static final String RUNTIME_API = "haproxy.runtime.api";
  public static final String WEIGHT = "haproxy.weight";
  public static final String INTERVAL_MS = "haproxy.reconcile.interval.ms";
  public static final String TIMEOUT_MS = "haproxy.timeout.ms";
  public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
  public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
  public static final String KAFKA_PREFIX = "kafka.";

  public HaproxySettings {
    kafkaOverrides = Map.copyOf(kafkaOverrides);
  }

  public static HaproxySettings from(Properties p) {
    SettingsReader read = new SettingsReader(p);
    String api = read.required(RUNTIME_API, "HAProxy's stats socket at level admin: host:port or unix:/path");
    if (!api.startsWith("unix:/") && !api.matches("[^:\\s]+:\\d{1,5}")) {
      read.problem(RUNTIME_API + ": '" + api + "' is neither host:port nor unix:/path");
    }
    int weight = read.integer(WEIGHT, 100, 1, 256);
    int intervalMs = read.integer(INTERVAL_MS, 1_000, 100, 600_000);
    int timeoutMs = read.integer(TIMEOUT_MS, 2_000, 100, 60_000);
    String bootstrap = read.required(BOOTSTRAP_SERVERS, "host:port of a Kafka broker");
    String registry = read.required(SCHEMA_REGISTRY_URL, "base URL of the schema registry");
    Map<String, String> kafka = read.prefixed(KAFKA_PREFIX);
    MetricsSettings metrics = MetricsSettings.from(read, 9407);
    read.check("haproxy-adapter");
    return new HaproxySettings(api, weight, Duration.ofMillis(intervalMs), Duration.ofMillis(timeoutMs), bootstrap,
        registry, kafka, metrics);
  }

  Map<String, Object> kafkaProperties() {
    Map<String, Object> props = new HashMap<>(kafkaOverrides);
    props.put("bootstrap.servers", bootstrapServers);
    return props;
  }
}
