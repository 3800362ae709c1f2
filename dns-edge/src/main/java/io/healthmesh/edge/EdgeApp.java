package io.healthmesh.edge;

import io.healthmesh.edge.answer.Forwarding;
import io.healthmesh.edge.answer.Responder;
import io.healthmesh.edge.dnssec.OnlineSigning;
import io.healthmesh.edge.follow.TopicFollower;
import io.healthmesh.edge.forward.ClientRateLimit;
import io.healthmesh.edge.forward.Forwarder;
import io.healthmesh.edge.log.DecisionLog;
import io.healthmesh.edge.log.LogOrigin;
import io.healthmesh.edge.log.QueryLog;
import io.healthmesh.edge.routing.Regions;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.server.EdgeServer;
import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.edge.status.EdgeStatusReporter;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.schemas.FollowerThreads;
import io.healthmesh.schemas.KafkaAccess;
import io.healthmesh.schemas.RetryingRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

/** One DNS edge: follows the topics into snapshots and answers from the latest one. */
public final class EdgeApp implements AutoCloseable {
  private final AtomicReference<Snapshot> snapshot = new AtomicReference<>(Snapshot.NOT_READY);
  private final TopicFollower follower;
  private final EdgeServer server;
  private final DecisionLog decisions;
  private final QueryLog queryLog;
  private final Forwarder forwarder;
  private final String listenHost;
  private final MeterRegistry meters;
  private final EdgeStatusReporter status;
  private final OnlineSigning signing;
  private final Set<String> offsetGauges = ConcurrentHashMap.newKeySet();

  private EdgeApp(EdgeSettings settings, SchemaRegistryClient direct, MeterRegistry meters, Clock clock)
      throws IOException {
    // While the registry is away the follower waits for it, answering from the last snapshot,
    // rather than leaving out a record whose schema it does not know yet.
    SchemaRegistryClient registry = new RetryingRegistryClient(direct, null).bindTo(meters);
    LogOrigin origin = new LogOrigin(settings.name(), settings.region(), settings.decisionSampleRate(),
        settings.kafkaProperties());
    this.decisions = new DecisionLog(origin, registry, meters);
    this.queryLog = new QueryLog(origin, registry, meters);
    this.listenHost = settings.host();
    this.forwarder = new Forwarder(settings.forward(), meters);
    ClientRateLimit limit = new ClientRateLimit(settings.forward().ratePerClient(), settings.forward().burstPerClient(),
        System::nanoTime);
    this.signing = OnlineSigning.start(settings.dnssec(), clock, meters);
    Responder responder = new Responder(snapshot::get, new RoutingEngine(Regions.builtIn()), settings.region(),
        settings.clientSubnetRegions(), settings.notReadyRcode(), ThreadLocalRandom::current, decisions,
        new Forwarding(forwarder, limit, this::isSelf), queryLog, signing);
    this.server = EdgeServer.start(new EdgeServer.Listen(settings.host(), settings.port(), settings.udpThreads(),
        settings.udpBatch(), settings.tcp()), responder, meters);
    this.meters = meters;
    this.follower = new TopicFollower(settings.kafkaProperties(), registry, settings.snapshots(), meters,
        kafkaAccess(), this::swap).start();
    this.status = settings.statusInterval().isZero() ? null : new EdgeStatusReporter(settings.name(), settings.region(),
        settings.kafkaProperties(), registry, follower, snapshot::get, signing, this::notReady, settings.statusInterval(), meters);
    meters.gauge("healthmesh.edge.ready", this, e -> e.ready() ? 1 : 0);
    meters.gauge("healthmesh.edge.dnssec.zones.unsigned", this, e -> e.signing.problems(e.snapshot().zones()).size());
    meters.gauge("healthmesh.edge.snapshot.staleness.seconds", follower, f -> f.stalenessMillis() / 1000.0);
    meters.gauge("healthmesh.edge.snapshot.age.seconds", snapshot,
        s -> s.get().builtAtMillis() == 0 ? 0 : (System.currentTimeMillis() - s.get().builtAtMillis()) / 1000.0);
    meters.gauge("healthmesh.edge.follower.lag.records", follower, TopicFollower::lagRecords);
    meters.gauge("healthmesh.edge.follower.lag.seconds", follower, f -> f.lagMillis() / 1000.0);
    FunctionCounter.builder("healthmesh.edge.records.skipped", follower, TopicFollower::skipped)
        .description("records of the followed topics that could not be read and were left out").register(meters);
    FunctionCounter.builder("healthmesh.edge.records.rejected", follower, TopicFollower::rejected)
        .description("configuration records that broke a rule; the previous version stays in force").register(meters);
    for (HealthStatus as : List.of(HealthStatus.HEALTHY, HealthStatus.UNHEALTHY)) { // R-OP-2
      Gauge.builder("healthmesh.edge.unknown.targets.counted", follower,
          f -> f.unknownCountedAs(as)).tag("as", as.name())
          .description("UNKNOWN target addresses that their record set counts as this state, not as the default")
          .register(meters);
    }
    meters.gauge("healthmesh.edge.snapshot.version", snapshot, s -> s.get().version());
    meters.gauge("healthmesh.edge.snapshot.record.sets", snapshot, s -> s.get().recordSets());
    meters.gauge("healthmesh.edge.snapshot.zones", snapshot, s -> s.get().zones().size());
    meters.gauge("healthmesh.edge.snapshot.response.policies", snapshot,
        s -> s.get().policies().responsePolicies().size());
    meters.gauge("healthmesh.edge.snapshot.response.policy.rules", snapshot,
        s -> s.get().policies().responsePolicies().stream().mapToInt(a -> a.rules().size()).sum());
    meters.gauge("healthmesh.edge.snapshot.server.policies", snapshot, s -> s.get().policies().serverPolicies().size());
  }

  /** Listens at once (answering SERVFAIL or REFUSED until ready) and follows the topics. */
  public static EdgeApp start(EdgeSettings settings, SchemaRegistryClient registry, MeterRegistry meters)
      throws IOException {
    return new EdgeApp(settings, registry, meters, Clock.systemUTC());
  }

  /** @param clock what signatures' validity is counted from (R-DNSSEC-4) */
  public static EdgeApp start(EdgeSettings settings, SchemaRegistryClient registry, MeterRegistry meters, Clock clock)
      throws IOException {
    return new EdgeApp(settings, registry, meters, clock);
  }

  /** Swaps in a new snapshot, and exposes the offset of every partition it answers from. */
  private void swap(Snapshot next) {
    snapshot.set(next);
    for (String tp : next.offsets().keySet()) {
      if (offsetGauges.add(tp)) {
        int dash = tp.lastIndexOf('-');
        meters.gauge("healthmesh.edge.snapshot.offset", Tags.of("topic",
            tp.substring(0, dash), "partition", tp.substring(dash + 1)), snapshot,
            s -> s.get().offsets().getOrDefault(tp, -1L));
      }
    }
  }

  public int port() {
    return server.port();
  }

  /** An upstream that is this edge: its port, on a loopback, wildcard or the listening address. */
  private boolean isSelf(InetSocketAddress target) {
    InetAddress a = target.getAddress();
    return server != null && target.getPort() == server.port()
        && (a.isLoopbackAddress() || a.isAnyLocalAddress() || a.getHostAddress().equals(listenHost));
  }

  /**
   * What an edge does in Kafka: reads its configuration and health whole, without a consumer
   * group, and writes its status, decisions, query logs and the configuration it took.
   */
  public static KafkaAccess kafkaAccess() {
    return KafkaAccess.of("edge").reading(TopicFollower.TOPICS).writing(List.of(Topics.EDGE_STATUS.name(),
        Topics.DNS_DECISIONS.name(), Topics.DNS_QUERY_LOG.name(), Topics.CONFIG_IN_FORCE.name()));
  }

  /** Serving everything the topics hold, and able to sign every signed zone (R-DNSSEC-3). */
  public boolean ready() {
    return notReady() == null;
  }

  /** Why the edge is not ready, or null when it is. */
  public String notReady() {
    if (!follower.ready()) {
      return FollowerThreads.notReadWhole("the topics", follower.failure());
    }
    List<String> problems = signing.problems(snapshot.get().zones());
    return problems.isEmpty() ? null : String.join("; ", problems);
  }

  /** Records in the topics that the snapshot in force does not include yet. */
  public long lagRecords() {
    return follower.lagRecords();
  }

  /** Waits until the first full snapshot is in force. */
  public void awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!snapshot.get().ready()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("edge not ready after " + timeout);
      }
      Thread.sleep(20);
    }
  }

  public Snapshot snapshot() {
    return snapshot.get();
  }

  @Override
  public void close() {
    server.close();
    if (status != null) {
      status.close();
    }
    follower.close();
    signing.close();
    forwarder.close();
    decisions.close();
    queryLog.close();
  }
}
