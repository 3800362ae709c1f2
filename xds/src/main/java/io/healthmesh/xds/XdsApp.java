package io.healthmesh.xds;

import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.controlplane.server.V3DiscoveryServer;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.healthmesh.events.XdsStatus;
import io.healthmesh.observability.StatusReports;
import io.healthmesh.schemas.FollowerThreads;
import io.healthmesh.schemas.KafkaAccess;
import io.healthmesh.schemas.RetryingRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One xDS server: follows the topics into snapshots and serves them to Envoy and proxyless gRPC
 * clients over ADS (state of the world and delta) and the per-type services.
 */
public final class XdsApp implements AutoCloseable {
  private final SnapshotPublisher publisher;
  private final StreamTracker tracker;
  private final XdsFollower follower;
  private final Server server;
  private final String name;
  private final StatusReports<XdsStatus> reports;

  private XdsApp(XdsSettings settings, SchemaRegistryClient direct, MeterRegistry meters) throws IOException {
    SchemaRegistryClient registry = new RetryingRegistryClient(direct, null).bindTo(meters);
    SimpleCache<String> cache = new SimpleCache<>(node -> SnapshotPublisher.GROUP);
    this.publisher = new SnapshotPublisher(cache);
    this.tracker = new StreamTracker(meters, publisher::current);
    V3DiscoveryServer discovery = new V3DiscoveryServer(List.of(tracker), cache);
    this.server = NettyServerBuilder.forAddress(new InetSocketAddress(settings.host(), settings.port()))
        .addService(discovery.getAggregatedDiscoveryServiceImpl())
        .addService(discovery.getClusterDiscoveryServiceImpl())
        .addService(discovery.getEndpointDiscoveryServiceImpl())
        .addService(discovery.getListenerDiscoveryServiceImpl())
        .addService(discovery.getRouteDiscoveryServiceImpl())
        // Clients keep their streams open for hours; let them probe the connection.
        .permitKeepAliveTime(10, TimeUnit.SECONDS).permitKeepAliveWithoutCalls(true)
        .build().start();
    this.follower = new XdsFollower(settings.kafkaProperties(), registry, settings.snapshotMaxDelay(), publisher,
        meters, kafkaAccess()).start();
    meters.gauge("healthmesh.xds.ready", follower, f -> f.ready() ? 1 : 0);
    meters.gauge("healthmesh.xds.consumers", follower, XdsFollower::consumers);
    meters.gauge("healthmesh.xds.negs.left.out", publisher, SnapshotPublisher::negsLeftOut);
    meters.gauge("healthmesh.xds.follower.lag.records", follower, XdsFollower::lagRecords);
    FunctionCounter.builder("healthmesh.xds.records.skipped", follower, XdsFollower::skipped)
        .description("records of the followed topics that could not be read and were left out").register(meters);
    FunctionCounter.builder("healthmesh.xds.records.rejected", follower, XdsFollower::rejected)
        .description("consumer backend services that broke R-XDS-2; the previous version stays").register(meters);
    this.name = settings.name();
    this.reports = settings.statusInterval().isZero() ? null : new StatusReports<>(Topics.XDS_STATUS, name,
        this::status, settings.kafkaProperties(), registry, settings.statusInterval(), meters,
        "healthmesh.xds.status.reports");
  }

  /** Listens at once (clients wait for a first snapshot) and follows the topics. */
  public static XdsApp start(XdsSettings settings, SchemaRegistryClient registry, MeterRegistry meters) {
    try {
      return new XdsApp(settings, registry, meters);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve xDS on " + settings.host() + ":" + settings.port() + ": "
          + e.getMessage(), e);
    }
  }

  public int port() {
    return server.getPort();
  }

  /**
   * What an xDS server does in Kafka: reads the consumers' configuration and failovers whole,
   * without a consumer group, and writes its status.
   */
  public static KafkaAccess kafkaAccess() {
    return KafkaAccess.of("xds").reading(XdsFollower.TOPICS).writing(List.of(Topics.XDS_STATUS.name()));
  }

  /** Serving what the topics say: the first snapshot from a whole read of them is served. */
  public boolean ready() {
    return follower.ready();
  }

  /** Why the server is not ready (the broker's refusal, when it refuses), or null when it is. */
  public String notReady() {
    if (ready()) {
      return null;
    }
    return FollowerThreads.notReadWhole("the topics", follower.failure());
  }

  /** What each connected client was last sent and acknowledged. */
  public List<ClientStream.View> clients() {
    return tracker.clients();
  }

  /** NEGs left out of load assignments, by consumer (R-XDS-2). */
  public Map<String, List<String>> leftOut() {
    return publisher.leftOut();
  }

  /** What this server reports to {@code xds-status}. */
  public XdsStatus status() {
    return XdsStatusReport.of(name, ready(), follower.consumers(), follower.lagRecords(), leftOut(), clients());
  }

  @Override
  public void close() {
    if (reports != null) {
      reports.close();
    }
    server.shutdown();
    follower.close();
    try {
      if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
  }
}
