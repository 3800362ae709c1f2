package io.healthmesh.streams;

import io.healthmesh.observability.MetricsServer;
import io.healthmesh.schemas.KafkaAccess;
import io.healthmesh.schemas.KafkaRefusal;
import io.healthmesh.schemas.RegistryUnavailableException;
import io.healthmesh.schemas.RetryingRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.query.StatusService;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The running topology: checks its inputs, starts Kafka Streams, and stops it. */
public final class HealthStreamsApp implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HealthStreamsApp.class);
  private static final Duration REGISTRY_PAUSE = Duration.ofSeconds(1);
  /** How long an instance waits for another's part of a status query. */
  private static final Duration PEER_TIMEOUT = Duration.ofSeconds(5);
  private final KafkaStreams streams;
  private final AtomicReference<String> refused;

  private HealthStreamsApp(KafkaStreams streams, AtomicReference<String> refused) {
    this.streams = streams;
    this.refused = refused;
  }

  /**
   * What the topology does in Kafka: reads probes and the configuration it judges by; writes
   * health, transitions, failovers and dead letters; owns its internal topics, its consumer group
   * and its transactional ids, all named by its application id; and reads the brokers' group and
   * transaction settings (DescribeConfigs on the cluster: without it, Kafka's defaults are assumed).
   */
  public static KafkaAccess kafkaAccess(String applicationId) {
    return KafkaAccess.of("topology").reading(HealthTopology.INPUTS).writing(HealthTopology.OUTPUTS)
        .owningTopicsStartingWith(applicationId + "-").joining(applicationId)
        .usingTransactionalIdsStartingWith(applicationId + "-").onCluster(AclOperation.DESCRIBE_CONFIGS);
  }

  /** Starts the topology; returns once it is RUNNING. */
  public static HealthStreamsApp start(StreamsSettings settings, SchemaRegistryClient registry, MeterRegistry meters,
      Duration timeout) {
    return start(settings, registry, meters, timeout, null);
  }

  /**
   * Starts the topology, answering status queries on {@code queries}' port ({@link StatusService})
   * when it is not null; returns once it is RUNNING. Unless {@code streams.application.server}
   * says otherwise, that port is the address other instances and healthctl ask.
   */
  public static HealthStreamsApp start(StreamsSettings settings, SchemaRegistryClient registry, MeterRegistry meters,
      Duration timeout, MetricsServer queries) {
    BrokerLimits broker;
    int partitions;
    KafkaAccess access = kafkaAccess(settings.applicationId());
    Map<String, Object> admins = adminConfig(settings);
    try (Admin admin = Admin.create(admins)) {
      partitions = checkCoPartitioned(admin, settings);
      broker = BrokerLimits.read(admin);
    } catch (RuntimeException e) {
      throw KafkaRefusal.explained(e, access, admins);
    }
    FailureDetection detection = settings.failureDetection(broker);
    detection.adjustments().forEach(a -> LOG.warn("{}", a));
    LOG.info("a killed instance's tasks are served by another within about {} ms: session {} ms, transaction timeout {} ms,"
        + " brokers abort timed-out transactions every {} ms", detection.takeoverBound().toMillis(),
        detection.session().toMillis(), detection.transactionTimeout().toMillis(), broker.abortCheckInterval().toMillis());
    Gauge.builder("healthmesh.topology.takeover.bound", detection, d -> d.takeoverBound().toMillis() / 1e3)
        .description("Longest a killed instance's tasks wait before another instance's results are visible"
            + " (session timeout, or transaction timeout plus the brokers' abort check), not counting restore")
        .baseUnit("seconds").register(meters);
    Gauge.builder("healthmesh.topology.endpoint.writes", () -> 1).tag("mode", settings.endpointWrites().setting)
        .description("1, tagged with when changed endpoint groups are written: at-commit (a Kafka Streams internal"
            + " hook) or through-cache (public API only)").register(meters);
    // A record whose schema is not cached waits here while the registry is away, never becomes
    // a dead letter; the wait stays well under the transaction timeout.
    SchemaRegistryClient retrying = new RetryingRegistryClient(registry, detection.registryWait()).bindTo(meters);
    Properties props = settings.streamsProperties(broker);
    if (queries != null) {
      props.putIfAbsent(StreamsConfig.APPLICATION_SERVER_CONFIG, advertised(queries));
    }
    KafkaStreams streams = new KafkaStreams(HealthTopology.build(settings, retrying, meters, partitions), props);
    if (queries != null) {
      queries.handle(StatusService.PATH, new StatusService(streams,
          props.getProperty(StreamsConfig.APPLICATION_SERVER_CONFIG), PEER_TIMEOUT, meters));
    }
    AtomicReference<String> refused = new AtomicReference<>();
    streams.setUncaughtExceptionHandler(e -> replaceThread(e, refused, access, admins));
    streams.setGlobalStateRestoreListener(new RestoreLog(meters));
    new KafkaStreamsMetrics(streams).bindTo(meters);
    EntityCounts.register(streams, meters);
    streams.start();
    HealthStreamsApp app = new HealthStreamsApp(streams, refused);
    app.awaitRunning(timeout);
    return app;
  }

  /** host:port where the others reach {@code server}: its host, or this machine's name when it listens on every interface. */
  private static String advertised(MetricsServer server) {
    String host = server.host();
    if (host.equals("0.0.0.0") || host.equals("::")) {
      try {
        host = InetAddress.getLocalHost().getCanonicalHostName();
      } catch (UnknownHostException e) {
        throw new IllegalStateException("metrics.host listens on every interface and this machine's name is"
            + " unknown (" + e.getMessage() + "); set streams.application.server to host:port", e);
      }
    }
    return host + ":" + server.port();
  }

  /** The same client settings as Kafka Streams' own admin client: security, {@code streams.admin.*} overrides. */
  static Map<String, Object> adminConfig(StreamsSettings settings) {
    return new StreamsConfig(settings.streamsProperties()).getAdminConfigs(settings.applicationId() + "-startup");
  }

  /**
   * A failed thread is replaced; its tasks start again from their last commit, so a record whose
   * processing failed is read again, and with exactly-once nothing it half wrote is seen. A
   * registry outage is waited out this way, a pause at a time.
   */
  private static StreamThreadExceptionResponse replaceThread(Throwable e, AtomicReference<String> refused,
      KafkaAccess access, Map<String, Object> client) {
    Optional<RuntimeException> refusal = KafkaRefusal.of(e);
    if (refusal.isPresent()) {
      // A missing ACL fails every replacement thread the same way: stop and say so, never loop.
      refused.set(KafkaRefusal.explain(refusal.get(), access, client));
      LOG.error("{}; stopping the topology", refused.get());
      return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }
    RegistryUnavailableException registry = registryCause(e);
    if (registry == null) {
      LOG.error("stream thread failed; replacing it", e);
      return StreamThreadExceptionResponse.REPLACE_THREAD;
    }
    LOG.warn("{}; restarting the stream thread from its last commit in {} s", registry.getMessage(),
        REGISTRY_PAUSE.toSeconds());
    try {
      Thread.sleep(REGISTRY_PAUSE.toMillis());
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    }
    return StreamThreadExceptionResponse.REPLACE_THREAD;
  }

  private static RegistryUnavailableException registryCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof RegistryUnavailableException r) {
        return r;
      }
    }
    return null;
  }

  public KafkaStreams.State state() {
    return streams.state();
  }

  /** Ready while every task is assigned and processing. */
  public boolean ready() {
    return streams.state() == KafkaStreams.State.RUNNING;
  }

  /** Why the topology is not ready (the broker's refusal when there was one), or null when it is. */
  public String notReady() {
    if (ready()) {
      return null;
    }
    String refusal = refused.get();
    return refusal != null ? refusal : "Kafka Streams is " + streams.state();
  }

  private void awaitRunning(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (streams.state() != KafkaStreams.State.RUNNING) {
      if (System.nanoTime() > deadline || !streams.state().isRunningOrRebalancing()
          && streams.state() != KafkaStreams.State.CREATED) {
        streams.close(Duration.ofSeconds(10));
        String refusal = refused.get();
        throw new IllegalStateException(refusal != null ? refusal
            : "topology not running after " + timeout + ": " + streams.state());
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  /**
   * The per-service stage keeps an endpoint's state and its service's configuration in one task,
   * which only holds when both topics have the same number of partitions.
   */
  static int checkCoPartitioned(Admin admin, StreamsSettings settings) {
    try {
      List<String> names = List.of(Topics.PROBE_RESULTS.name(), Topics.BACKEND_SERVICES.name());
      Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
      int probes = topics.get(names.get(0)).partitions().size();
      int services = topics.get(names.get(1)).partitions().size();
      if (probes != services) {
        throw new IllegalStateException(names.get(0) + " has " + probes + " partitions and " + names.get(1) + " has "
            + services + "; they must be equal so that probes meet their service's configuration");
      }
      return probes;
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot describe the input topics at " + settings.bootstrapServers() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * Stops cleanly and leaves the group, so that the other instances take this one's tasks at
   * once instead of after its session has expired.
   */
  @Override
  public void close() {
    streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
        .withTimeout(Duration.ofSeconds(30)));
  }
}
