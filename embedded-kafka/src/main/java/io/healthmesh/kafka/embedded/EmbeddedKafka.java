package io.healthmesh.kafka.embedded;

import io.healthmesh.schemas.TopicCreator;
import io.healthmesh.schemas.Topics;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node KRaft broker (broker and controller in one) running in this process on loopback,
 * with healthmesh's topics created. For the demo and the integration tests: nothing to install.
 *
 * <p>With a data directory that already holds a formatted log, the broker comes back with its
 * topics and data; without one, a temporary directory is used and deleted on close.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);
  private static final String HOST = "127.0.0.1";

  private final KafkaRaftServer server;
  private final Path dataDir;
  private final boolean temporary;
  private final String bootstrapServers;
  private final String securedBootstrapServers;

  private EmbeddedKafka(KafkaRaftServer server, Path dataDir, boolean temporary, String bootstrapServers,
      String securedBootstrapServers) {
    this.server = server;
    this.dataDir = dataDir;
    this.temporary = temporary;
    this.bootstrapServers = bootstrapServers;
    this.securedBootstrapServers = securedBootstrapServers;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * {@code host:port} of the PLAINTEXT listener. On a {@linkplain Builder#secured secured} broker
   * its clients are super users: it is for setting the broker up, never for the components tested.
   */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** {@code host:port} of the SASL_SSL listener of a {@linkplain Builder#secured secured} broker. */
  public String securedBootstrapServers() {
    if (securedBootstrapServers == null) {
      throw new IllegalStateException("this broker was not started secured()");
    }
    return securedBootstrapServers;
  }

  /** Creates (or changes the password of) a SCRAM-SHA-512 user of the SASL_SSL listener. */
  public void createUser(String user, String password) throws InterruptedException {
    try (Admin admin = admin()) {
      admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
          new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password))).all().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot create user " + user + ": " + e.getMessage(), e);
    }
  }

  public Path dataDir() {
    return dataDir;
  }

  /** A new admin client for this broker; the caller closes it. */
  public Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
  }

  /**
   * Whether {@code group} has committed offsets at the end of every partition of {@code topic}:
   * everything written to it so far has been read and its results committed.
   */
  public boolean consumed(String group, String topic) {
    try (Admin admin = admin()) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()
          .forEach(info -> latest.put(new TopicPartition(topic, info.partition()), OffsetSpec.latest()));
      return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet().stream()
          .allMatch(e -> e.getValue().offset() == 0 || committed.containsKey(e.getKey())
              && committed.get(e.getKey()).offset() >= e.getValue().offset());
    } catch (ExecutionException | TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() {
    server.shutdown();
    server.awaitShutdown();
    if (temporary) {
      deleteRecursively(dataDir);
    }
  }

  /** Start-up settings; every one has a default that suits a test. */
  public static final class Builder {
    private Path dataDir;
    private int port;
    private int partitions = 3;
    private boolean createTopics = true;
    private Duration startTimeout = Duration.ofSeconds(60);
    private final Properties extra = new Properties();
    private TestCa tls;

    /** Where logs and metadata live; kept on close. Default: a temporary directory, deleted on close. */
    public Builder dataDir(Path dataDir) {
      this.dataDir = dataDir;
      return this;
    }

    /** Port of the PLAINTEXT listener; 0 (default) picks a free one. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** Partitions of each project topic created at start (default 3). */
    public Builder partitions(int partitions) {
      this.partitions = partitions;
      return this;
    }

    /** Whether to create healthmesh's topics at start (default true). */
    public Builder createTopics(boolean createTopics) {
      this.createTopics = createTopics;
      return this;
    }

    /** A broker setting beyond this class's own, e.g. what a deployment tunes for fast takeover. */
    public Builder brokerProperty(String key, String value) {
      extra.setProperty(key, value);
      return this;
    }

    /**
     * Adds a SASL_SSL listener (SCRAM-SHA-512, serving {@code tls}'s certificate) and turns on
     * Kafka's standard authorizer: there, a principal does only what an ACL allows. The
     * PLAINTEXT listener stays for setting the broker up (users, ACLs, topics) as a super user.
     */
    public Builder secured(TestCa tls) {
      this.tls = tls;
      return this;
    }

    public Builder startTimeout(Duration startTimeout) {
      this.startTimeout = startTimeout;
      return this;
    }

    public EmbeddedKafka start() {
      boolean temporary = dataDir == null;
      Path dir = temporary ? createTempDir() : dataDir;
      Path logs = dir.resolve("kafka-logs");
      int brokerPort = port == 0 ? freePort() : port;
      int controllerPort = freePortOtherThan(brokerPort);
      int securedPort = tls == null ? 0 : freePortOtherThan(brokerPort, controllerPort);
      Properties props = brokerProperties(logs, brokerPort, securedPort, controllerPort);
      KafkaConfig config = new KafkaConfig(props, false);
      format(logs);
      KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
      server.startup();
      EmbeddedKafka kafka = new EmbeddedKafka(server, dir, temporary, HOST + ":" + brokerPort,
          tls == null ? null : HOST + ":" + securedPort);
      try {
        kafka.awaitReady(startTimeout);
        createTopicsIfAsked(kafka);
        LOG.info("embedded Kafka ready on {} (data in {})", kafka.bootstrapServers, dir);
        return kafka;
      } catch (RuntimeException | InterruptedException e) {
        kafka.close();
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("embedded Kafka did not start: " + e.getMessage(), e);
      }
    }

    /** @param securedPort the SASL_SSL listener's port, when {@link #secured} */
    private Properties brokerProperties(Path logs, int brokerPort, int securedPort, int controllerPort) {
      Properties p = new Properties();
      p.setProperty("process.roles", "broker,controller");
      p.setProperty("node.id", "1");
      p.setProperty("controller.quorum.voters", "1@" + HOST + ":" + controllerPort);
      String advertised = "PLAINTEXT://" + HOST + ":" + brokerPort
          + (tls == null ? "" : ",SASL_SSL://" + HOST + ":" + securedPort);
      p.setProperty("listeners", advertised + ",CONTROLLER://" + HOST + ":" + controllerPort);
      p.setProperty("advertised.listeners", advertised);
      p.setProperty("listener.security.protocol.map",
          "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT" + (tls == null ? "" : ",SASL_SSL:SASL_SSL"));
      if (tls != null) {
        secure(p);
      }
      p.setProperty("controller.listener.names", "CONTROLLER");
      p.setProperty("inter.broker.listener.name", "PLAINTEXT");
      p.setProperty("log.dirs", logs.toString());
      // One node: every internal topic must live with a single replica.
      p.setProperty("offsets.topic.replication.factor", "1");
      p.setProperty("offsets.topic.num.partitions", "5");
      p.setProperty("transaction.state.log.replication.factor", "1");
      p.setProperty("transaction.state.log.min.isr", "1");
      p.setProperty("transaction.state.log.num.partitions", "5");
      p.setProperty("share.coordinator.state.topic.replication.factor", "1");
      p.setProperty("share.coordinator.state.topic.min.isr", "1");
      p.setProperty("group.initial.rebalance.delay.ms", "0");
      p.setProperty("num.partitions", String.valueOf(partitions));
      p.setProperty("default.replication.factor", "1");
      // Topics are created on purpose (TopicCreator, Streams' admin), never by a typo.
      p.setProperty("auto.create.topics.enable", "false");
      p.putAll(extra);
      return p;
    }

    /** SCRAM over TLS on the SASL_SSL listener, and the standard authorizer. */
    private void secure(Properties p) {
      p.setProperty("sasl.enabled.mechanisms", "SCRAM-SHA-512");
      p.setProperty("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
          "org.apache.kafka.common.security.scram.ScramLoginModule required;");
      p.setProperty("ssl.keystore.type", "PKCS12");
      p.setProperty("ssl.keystore.location", tls.keystore().toString());
      p.setProperty("ssl.keystore.password", tls.password());
      p.setProperty("ssl.key.password", tls.password());
      p.setProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
      // The PLAINTEXT and controller listeners authenticate no one: their ANONYMOUS sets the broker up.
      p.setProperty("super.users", "User:ANONYMOUS");
    }

    private static void format(Path logs) {
      if (Files.exists(logs.resolve("meta.properties"))) {
        return; // formatted before: keep its cluster id, topics and data
      }
      try {
        Files.createDirectories(logs);
        new Formatter()
            .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
            .setNodeId(1)
            .setClusterId(Uuid.randomUuid().toString())
            .setDirectories(List.of(logs.toString()))
            .setMetadataLogDirectory(logs.toString())
            .setControllerListenerName("CONTROLLER")
            .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
            .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
            .run();
      } catch (Exception e) {
        throw new IllegalStateException("cannot format KRaft storage in " + logs + ": " + e.getMessage(), e);
      }
    }

    private void createTopicsIfAsked(EmbeddedKafka kafka) throws InterruptedException {
      if (!createTopics) {
        return;
      }
      try (Admin admin = kafka.admin()) {
        new TopicCreator(partitions, (short) 1).createMissing(admin, Topics.all());
      }
    }
  }

  private void awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = admin()) {
      while (true) {
        try {
          if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
            break;
          }
        } catch (Exception e) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("broker not ready after " + timeout, e);
          }
        }
        Thread.sleep(100);
      }
    }
  }

  private static int freePortOtherThan(int... taken) {
    while (true) {
      int candidate = freePort();
      if (Arrays.stream(taken).noneMatch(t -> t == candidate)) {
        return candidate;
      }
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on " + HOST, e);
    }
  }

  private static Path createTempDir() {
    try {
      return Files.createTempDirectory("healthmesh-kafka-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", dir, e.toString());
    }
  }
}
