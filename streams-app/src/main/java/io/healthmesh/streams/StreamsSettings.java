package io.healthmesh.streams;

import io.healthmesh.observability.MetricsSettings;
import io.healthmesh.settings.SettingsReader;
import io.healthmesh.streams.endpoint.EndpointWrites;
import io.healthmesh.streams.endpoint.PerServiceProcessor;
import io.healthmesh.streams.output.PromptCommit;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The topology application's configuration, validated once at start-up; an invalid one is
 * rejected whole with every problem listed. Keys are documented in docs/components.md.
 */
public record StreamsSettings(String applicationId, String bootstrapServers, String schemaRegistryUrl,
    String processingGuarantee, int standbyReplicas, int streamThreads, Duration commitInterval, String stateDir,
    Duration maxClockSkew, Duration staleCheckInterval, Duration changeCommitDelay, Duration changeCommitMaxLag,
    Duration failureDetection, EndpointWrites endpointWrites, Map<String, String> streamsOverrides,
    MetricsSettings metrics, boolean changelogs, String instanceId) {

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
  /** How soon after a change the topology commits, so that the change becomes visible. */
  public static final String CHANGE_COMMIT_MS = "healthmesh.change.commit.ms";
  /**
   * Changelog records a new instance may still have to restore and yet take a task at once rather
   * than warm a copy up until the next probing rebalance, a minute later: the stores restore
   * about this many records in a few seconds.
   */
  static final long ACCEPTABLE_RECOVERY_LAG = 1_000_000L;
  /** How far behind the input a task may be and still commit promptly after a change. */
  public static final String CHANGE_COMMIT_MAX_LAG_MS = "healthmesh.change.commit.max.lag.ms";
  /** How long a silent instance keeps its tasks: its session and its transaction timeout (FailureDetection). */
  public static final String FAILURE_DETECTION_MS = "healthmesh.failure.detection.ms";
  /** When changed endpoint groups are written: {@code at-commit} or {@code through-cache} (EndpointWrites). */
  public static final String ENDPOINT_WRITES = "healthmesh.endpoint.writes";
  /** false: stores without changelogs, for offline replays (healthctl audit replay), never a deployment. */
  public static final String CHANGELOGS = "healthmesh.stores.changelogs";
  /**
   * This instance's name in its group, the same across its restarts (static membership): a
   * restarted instance takes its tasks back at once instead of after its old session expired.
   */
  public static final String INSTANCE_ID = "healthmesh.instance.id";
  /** Any other Kafka Streams or client property, passed through with this prefix removed. */
  public static final String STREAMS_PREFIX = "streams.";

  public StreamsSettings {
    streamsOverrides = Map.copyOf(streamsOverrides);
  }

  public static StreamsSettings from(Properties p) {
    SettingsReader read = new SettingsReader(p);
    String appId = read.string(APPLICATION_ID, "healthmesh-streams");
    String bootstrap = read.required(BOOTSTRAP_SERVERS, "host:port of a Kafka broker");
    String registry = read.required(SCHEMA_REGISTRY_URL, "base URL of the schema registry");
    String guarantee = read.string(PROCESSING_GUARANTEE, StreamsConfig.EXACTLY_ONCE_V2);
    if (!List.of(StreamsConfig.EXACTLY_ONCE_V2, StreamsConfig.AT_LEAST_ONCE).contains(guarantee)) {
      read.problem(PROCESSING_GUARANTEE + ": '" + guarantee + "' is not exactly_once_v2 or at_least_once");
    }
    int standby = read.integer(STANDBY_REPLICAS, 0, 0, 10);
    int threads = read.integer(STREAM_THREADS, 1, 1, 64);
    int commitMs = read.integer(COMMIT_INTERVAL_MS, 100, 1, 600_000);
    String stateDir = read.string(STATE_DIR, System.getProperty("java.io.tmpdir") + "/healthmesh-streams");
    int skewMs = read.integer(MAX_CLOCK_SKEW_MS, 30_000, 0, Integer.MAX_VALUE);
    int staleMs = read.integer(STALE_CHECK_INTERVAL_MS, 1_000, 10, 3_600_000);
    int changeCommitMs = read.integer(CHANGE_COMMIT_MS, 10, 0, 600_000);
    int changeCommitLagMs = read.integer(CHANGE_COMMIT_MAX_LAG_MS, 200, 0, 3_600_000);
    int failureMs = read.integer(FAILURE_DETECTION_MS, 3_000, 1_000, 1_800_000);
    String writesText = read.string(ENDPOINT_WRITES, EndpointWrites.AT_COMMIT.setting);
    EndpointWrites writes = EndpointWrites.of(writesText).orElseGet(() -> {
      read.problem(ENDPOINT_WRITES + ": '" + writesText + "' is not at-commit or through-cache");
      return EndpointWrites.AT_COMMIT;
    });
    Map<String, String> overrides = new HashMap<>();
    p.stringPropertyNames().stream().filter(k -> k.startsWith(STREAMS_PREFIX))
        .forEach(k -> overrides.put(k.substring(STREAMS_PREFIX.length()), p.getProperty(k)));
    MetricsSettings metrics = MetricsSettings.from(read, 9401);
    boolean changelogs = read.bool(CHANGELOGS, true);
    String instanceId = read.string(INSTANCE_ID, "");
    if (!instanceId.matches("[A-Za-z0-9._-]{0,200}")) {
      read.problem(INSTANCE_ID + ": '" + instanceId + "' must be up to 200 letters, digits, '.', '_' or '-'");
    }
    read.check("streams-app");
    return new StreamsSettings(appId, bootstrap, registry, guarantee, standby, threads, Duration.ofMillis(commitMs),
        stateDir, Duration.ofMillis(skewMs), Duration.ofMillis(staleMs), Duration.ofMillis(changeCommitMs), Duration.ofMillis(changeCommitLagMs), Duration.ofMillis(failureMs), writes, overrides,
        metrics, changelogs, instanceId);
  }

  /** Properties for {@code KafkaStreams} against brokers with Kafka's default limits (test drivers, replays). */
  public Properties streamsProperties() {
    return streamsProperties(BrokerLimits.KAFKA_DEFAULTS);
  }

  /** When a stage commits after a change it forwarded. */
  PromptCommit.Timing commits() {
    return new PromptCommit.Timing(changeCommitDelay, changeCommitMaxLag);
  }

  PerServiceProcessor.Settings perService() {
    return new PerServiceProcessor.Settings(endpointWrites, maxClockSkew, staleCheckInterval, commits());
  }

  FailureDetection failureDetection(BrokerLimits broker) {
    return FailureDetection.of(failureDetection, commitInterval, streamsOverrides, broker);
  }

  /** Properties for {@code KafkaStreams}, with timeouts the brokers accept. */
  Properties streamsProperties(BrokerLimits broker) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, processingGuarantee);
    p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbyReplicas);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, streamThreads);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitInterval.toMillis());
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    // A task here reads probe results with several mostly empty configuration partitions.
    // Waiting to align their timestamps buys nothing (decisions use event time, R-AUD-2) and costs
    // Kafka Streams a formatted log message per record and empty partition: about five times the
    // work of the topology itself. Overridable like any other key.
    p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, -1L);
    // A prompt commit (PromptCommit) runs from the stream thread's loop, which otherwise waits up
    // to poll.ms (100) for records before it looks at the clock again.
    long changeMs = changeCommitDelay.toMillis();
    p.put(StreamsConfig.POLL_MS_CONFIG, changeMs == 0 ? 100L : Math.max(1L, Math.min(100L, changeMs)));
    // Takeover. A crashed instance keeps its tasks until its session expires and holds readers
    // back until its open transaction is aborted (FailureDetection). A new instance takes the tasks
    // it can restore in seconds at once (ACCEPTABLE_RECOVERY_LAG); others it warms up and takes at
    // the next probing rebalance: every minute (the least Kafka Streams allows) instead of every ten.
    failureDetection(broker).applyTo(p);
    p.put(StreamsConfig.PROBING_REBALANCE_INTERVAL_MS_CONFIG, 60_000L);
    p.put(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_RECOVERY_LAG);
    if (!instanceId.isEmpty()) {
      // Kafka Streams appends each stream thread's index, so every consumer has a name of its own.
      p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), instanceId);
    }
    p.putAll(streamsOverrides);
    return p;
  }
}
