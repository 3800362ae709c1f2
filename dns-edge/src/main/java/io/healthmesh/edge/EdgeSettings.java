package io.healthmesh.edge;

import io.healthmesh.edge.dnssec.SigningSettings;
import io.healthmesh.edge.follow.SnapshotPacing;
import io.healthmesh.edge.forward.ForwardSettings;
import io.healthmesh.edge.routing.SubnetRegions;
import io.healthmesh.edge.server.TcpLimits;
import io.healthmesh.observability.MetricsSettings;
import io.healthmesh.settings.SettingsReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.xbill.DNS.Rcode;

/** The edge's configuration, validated once at start-up; keys in docs/components.md. */
public record EdgeSettings(String name, String host, int port, String region, String bootstrapServers,
    String schemaRegistryUrl, int udpThreads, boolean udpBatch, TcpLimits tcp,
    int notReadyRcode, SnapshotPacing snapshots, SubnetRegions clientSubnetRegions, double decisionSampleRate,
    Duration statusInterval, ForwardSettings forward, SigningSettings dnssec,
    Map<String, String> kafkaOverrides, MetricsSettings metrics) {

  public static final String NAME = "edge.name";
  public static final String HOST = "dns.host";
  public static final String PORT = "dns.port";
  public static final String REGION = "edge.region";
  public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
  public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
  public static final String UDP_THREADS = "dns.udp.threads";
  public static final String UDP_BATCH = "dns.udp.batch";
  public static final String TCP_MAX_CONNECTIONS = "dns.tcp.max.connections";
  public static final String TCP_MAX_CONNECTIONS_PER_CLIENT = "dns.tcp.max.connections.per.client";
  public static final String TCP_IDLE_TIMEOUT_MS = "dns.tcp.idle.timeout.ms";
  public static final String TCP_MESSAGE_TIMEOUT_MS = "dns.tcp.message.timeout.ms";
  public static final String NOT_READY_RCODE = "dns.not.ready.rcode";
  public static final String CLIENT_SUBNET_REGIONS = "dns.client.subnet.regions";
  public static final String DECISION_SAMPLE_RATE = "dns.decisions.sample.rate";
  public static final String SNAPSHOT_MAX_DELAY_MS = "dns.snapshot.max.delay.ms";
  public static final String SNAPSHOT_MIN_INTERVAL_MS = "dns.snapshot.min.interval.ms";
  public static final String STATUS_INTERVAL_MS = "edge.status.interval.ms";
  public static final String FORWARD_TIMEOUT_MS = "dns.forward.timeout.ms";
  public static final String FORWARD_ATTEMPTS = "dns.forward.attempts";
  public static final String FORWARD_MAX_PENDING = "dns.forward.max.pending";
  public static final String FORWARD_RATE = "dns.forward.rate.per.client";
  public static final String FORWARD_BURST = "dns.forward.burst.per.client";
  public static final String DNSSEC_KEYS_DIR = "dns.dnssec.keys.dir";
  public static final String DNSSEC_VALIDITY_HOURS = "dns.dnssec.signature.validity.hours";
  public static final String DNSSEC_REFRESH_HOURS = "dns.dnssec.signature.refresh.hours";
  public static final String DNSSEC_CACHE_MAX = "dns.dnssec.cache.max.entries";
  public static final String DNSSEC_CACHE_IDLE_MINUTES = "dns.dnssec.cache.idle.minutes";
  public static final String DNSSEC_SWEEP_MS = "dns.dnssec.sweep.ms";
  public static final String KAFKA_PREFIX = "kafka.";

  public EdgeSettings {
    kafkaOverrides = Map.copyOf(kafkaOverrides);
  }

  public static EdgeSettings from(Properties p) {
    SettingsReader read = new SettingsReader(p);
    String region = read.required(REGION, "the cloud region this edge serves, e.g. us-east1");
    String name = read.string(NAME, "edge-" + region);
    String host = read.string(HOST, "127.0.0.1");
    int port = read.integer(PORT, 5353, 0, 65535);
    String bootstrap = read.required(BOOTSTRAP_SERVERS, "host:port of a Kafka broker");
    String registry = read.required(SCHEMA_REGISTRY_URL, "base URL of the schema registry");
    int udpThreads = read.integer(UDP_THREADS, 2, 1, 64);
    boolean udpBatch = read.bool(UDP_BATCH, true);
    int tcpMax = read.integer(TCP_MAX_CONNECTIONS, 256, 1, 65536);
    int perClient = read.integer(TCP_MAX_CONNECTIONS_PER_CLIENT, 32, 1, 65536);
    int idleMs = read.integer(TCP_IDLE_TIMEOUT_MS, 10_000, 100, 600_000);
    int messageMs = read.integer(TCP_MESSAGE_TIMEOUT_MS, 2_000, 100, 60_000);
    String notReady = read.string(NOT_READY_RCODE, "SERVFAIL");
    if (!List.of("SERVFAIL", "REFUSED").contains(notReady)) {
      read.problem(NOT_READY_RCODE + ": '" + notReady + "' is not SERVFAIL or REFUSED");
    }
    int maxDelayMs = read.integer(SNAPSHOT_MAX_DELAY_MS, 50, 0, 10_000);
    int minIntervalMs = read.integer(SNAPSHOT_MIN_INTERVAL_MS, 50, 0, 10_000);
    int statusMs = read.integer(STATUS_INTERVAL_MS, 5_000, 0, 600_000);
    SubnetRegions subnets = SubnetRegions.parse(read.string(CLIENT_SUBNET_REGIONS, ""),
        problem -> read.problem(CLIENT_SUBNET_REGIONS + ": " + problem));
    double sampleRate = 0;
    String rate = read.string(DECISION_SAMPLE_RATE, "0");
    try {
      sampleRate = Double.parseDouble(rate);
      if (sampleRate < 0 || sampleRate > 1) {
        read.problem(DECISION_SAMPLE_RATE + ": " + rate + " is outside 0..1 (R-DNSHC-6)");
      }
    } catch (NumberFormatException e) {
      read.problem(DECISION_SAMPLE_RATE + ": '" + rate + "' is not a number (R-DNSHC-6)");
    }
    ForwardSettings defaults = ForwardSettings.DEFAULTS;
    ForwardSettings forward = new ForwardSettings(
        Duration.ofMillis(read.integer(FORWARD_TIMEOUT_MS, (int) defaults.timeout().toMillis(), 10, 30_000)),
        read.integer(FORWARD_ATTEMPTS, defaults.attempts(), 1, 10),
        read.integer(FORWARD_MAX_PENDING, defaults.maxPending(), 1, 1_000_000),
        read.integer(FORWARD_RATE, defaults.ratePerClient(), 0, 1_000_000),
        read.integer(FORWARD_BURST, defaults.burstPerClient(), 1, 1_000_000));
    SigningSettings dnssec = dnssec(read);
    Map<String, String> kafka = read.prefixed(KAFKA_PREFIX);
    MetricsSettings metrics = MetricsSettings.from(read, 9402);
    read.check("dns-edge");
    return new EdgeSettings(name, host, port, region, bootstrap, registry, udpThreads, udpBatch,
        new TcpLimits(tcpMax, perClient, Duration.ofMillis(idleMs), Duration.ofMillis(messageMs)), notReady.equals("REFUSED") ? Rcode.REFUSED : Rcode.SERVFAIL,
        new SnapshotPacing(Duration.ofMillis(maxDelayMs), Duration.ofMillis(minIntervalMs)), subnets, sampleRate, Duration.ofMillis(statusMs), forward, dnssec, kafka,
        metrics);
  }

  /** R-DNSSEC-3, R-DNSSEC-4: where the keys are, and how long signatures live. */
  private static SigningSettings dnssec(SettingsReader read) {
    String dir = read.string(DNSSEC_KEYS_DIR, "");
    Path keys = null;
    if (!dir.isEmpty()) {
      keys = Path.of(dir);
      if (!Files.isDirectory(keys)) {
        read.problem(DNSSEC_KEYS_DIR + ": " + dir + " is not a directory");
      }
    }
    int validity = read.integer(DNSSEC_VALIDITY_HOURS, 168, 2, 24 * 90);
    int refresh = read.integer(DNSSEC_REFRESH_HOURS, 48, 1, 24 * 89);
    if (refresh >= validity) {
      read.problem(DNSSEC_REFRESH_HOURS + ": " + refresh + " must be less than " + DNSSEC_VALIDITY_HOURS + " ("
          + validity + ")");
    }
    SigningSettings d = SigningSettings.NONE;
    return new SigningSettings(keys, Duration.ofHours(validity), Duration.ofHours(refresh), d.inceptionOffset(),
        Duration.ofMinutes(read.integer(DNSSEC_CACHE_IDLE_MINUTES, 60, 1, 7 * 24 * 60)),
        read.integer(DNSSEC_CACHE_MAX, 250_000, 1_000, 100_000_000),
        Duration.ofMillis(read.integer(DNSSEC_SWEEP_MS, 5_000, 100, 600_000)));
  }

  Map<String, Object> kafkaProperties() {
    Map<String, Object> props = new HashMap<>(kafkaOverrides);
    props.put("bootstrap.servers", bootstrapServers);
    return props;
  }
}
