package io.healthmesh.schemas;

import java.util.Map;

/** Configuration keys the serdes read from a Kafka client or Streams configuration. */
public final class RegistryConfig {
  /** Comma-separated base URLs of the schema registry. Same key as Confluent's serdes. */
  public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
  /** Whether the serializer registers a schema it has not seen (default true). Same key as Confluent's. */
  public static final String AUTO_REGISTER_SCHEMAS = "auto.register.schemas";

  private RegistryConfig() {}

  static String url(Map<String, ?> configs) {
    Object url = configs.get(SCHEMA_REGISTRY_URL);
    if (url == null || url.toString().isBlank()) {
      throw new IllegalArgumentException("missing configuration " + SCHEMA_REGISTRY_URL);
    }
    return url.toString();
  }

  static boolean autoRegister(Map<String, ?> configs) {
    Object value = configs.get(AUTO_REGISTER_SCHEMAS);
    return value == null || Boolean.parseBoolean(value.toString());
  }

  /** Confluent's TopicNameStrategy: {@code <topic>-key} or {@code <topic>-value}. */
  public static String subject(String topic, boolean isKey) {
    return topic + (isKey ? "-key" : "-value");
  }
}
