package io.healthmesh.streams;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The topology application's configuration, validated once at start-up; an invalid one is
 * rejected whole with every problem listed. Keys are documented in the README.
 */
public record StreamsSettings(String applicationId, String bootstrapServers, String schemaRegistryUrl,
    String processingGuarantee, int standbyReplicas, int streamThreads, Duration commitInterval, String stateDir,
    Duration maxClockSkew, Duration staleCheckInterval, Map<String, String> streamsOverrides) {

  public static final String APPLICATION_ID = "application.id";
  public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
  public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
  public static final String PROCESSING_GUARANTEE = "processing.guarantee";
  public static final String STANDBY_REPLICAS = "num.standby.replicas";
  public static final String STREAM_THREADS = "num.stream.threads";
  public static final String COMMIT_INTERVAL_MS = "commit.interval.ms";
  public static final String STATE_DIR = "state.dir";
  public static final String MAX_CLOCK_SKEW_MS = "healthmesh.max.clock.skew.ms";
  public static final String STALE_CHECK_INTERVAL_MS = "healthmesh.stale.check.interval.ms";
  /** Any other Kafka Streams or client property, passed through with this prefix removed. */
  public static final String STREAMS_PREFIX = "streams.";

  public StreamsSettings {
    streamsOverrides = Map.copyOf(streamsOverrides);
  }

  public static StreamsSettings from(Properties p) {
    List<String> problems = new ArrayList<>();
    String appId = p.getProperty(APPLICATION_ID, "healthmesh-streams").trim();
    String bootstrap = required(p, BOOTSTRAP_SERVERS, problems);
    String registry = required(p, SCHEMA_REGISTRY_URL, problems);
    String guarantee = p.getProperty(PROCESSING_GUARANTEE, StreamsConfig.EXACTLY_ONCE_V2).trim();
    if (!List.of(StreamsConfig.EXACTLY_ONCE_V2, StreamsConfig.AT_LEAST_ONCE).contains(guarantee)) {
      problems.add(PROCESSING_GUARANTEE + ": '" + guarantee + "' is not exactly_once_v2 or at_least_once");
    }
    int standby = integer(p, STANDBY_REPLICAS, 0, 0, 10, problems);
    int threads = integer(p, STREAM_THREADS, 1, 1, 64, problems);
    int commitMs = integer(p, COMMIT_INTERVAL_MS, 100, 1, 600_000, problems);
    String stateDir = p.getProperty(STATE_DIR, System.getProperty("java.io.tmpdir") + "/healthmesh-streams").trim();
    int skewMs = integer(p, MAX_CLOCK_SKEW_MS, 300_000, 0, Integer.MAX_VALUE, problems);
    int staleMs = integer(p, STALE_CHECK_INTERVAL_MS, 1_000, 10, 3_600_000, problems);
    Map<String, String> overrides = new HashMap<>();
    p.stringPropertyNames().stream().filter(k -> k.startsWith(STREAMS_PREFIX))
        .forEach(k -> overrides.put(k.substring(STREAMS_PREFIX.length()), p.getProperty(k)));
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("invalid streams-app configuration:\n  - " + String.join("\n  - ", problems));
    }
    return new StreamsSettings(appId, bootstrap, registry, guarantee, standby, threads, Duration.ofMillis(commitMs),
        stateDir, Duration.ofMillis(skewMs), Duration.ofMillis(staleMs), overrides);
  }

  /** Properties for {@code KafkaStreams}. */
  public Properties streamsProperties() {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, processingGuarantee);
    p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbyReplicas);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, streamThreads);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitInterval.toMillis());
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.putAll(streamsOverrides);
    return p;
  }

  private static String required(Properties p, String key, List<String> problems) {
    String value = p.getProperty(key, "").trim();
    if (value.isEmpty()) {
      problems.add(key + ": required");
    }
    return value;
  }

  private static int integer(Properties p, String key, int defaultValue, int min, int max, List<String> problems) {
    String text = p.getProperty(key);
    if (text == null) {
      return defaultValue;
    }
    try {
      int value = Integer.parseInt(text.trim());
      if (value < min || value > max) {
        problems.add(key + ": " + value + " is outside " + min + ".." + max);
      }
      return value;
    } catch (NumberFormatException e) {
      problems.add(key + ": '" + text + "' is not a whole number");
      return defaultValue;
    }
  }
}
