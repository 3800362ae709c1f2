package io.healthmesh.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.envoyproxy.controlplane.cache.Resources;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.PscBackend;
import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.NegState;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The xDS server against gRPC's own xDS client (proxyless, {@code xds:///NAME}), with decisions
 * written to {@code consumer-failover} as the topology writes them; backends on loopback answer
 * their region. The whole path from probes is in the tests module (XdsFailoverIT).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class XdsServerIT {
  private static EmbeddedKafka kafka;
  private static SchemaRegistry registry;
  private static SchemaRegistryClient client;
  private static RegionService use1;
  private static RegionService euw1;
  private static int xdsPort;

  @BeforeAll
  static void start() throws Exception {
    kafka = EmbeddedKafka.builder().partitions(2).start();
    registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()));
    client = new RestSchemaRegistryClient(registry.url());
    use1 = RegionService.start("127.0.0.1", 0, "us-east1");
    euw1 = RegionService.start("127.0.0.1", 0, "europe-west1");
    try (ServerSocket s = new ServerSocket(0)) {
      xdsPort = s.getLocalPort();
    }
    Path bootstrap = Files.createTempFile("grpc-xds-bootstrap", ".json");
    Files.writeString(bootstrap, Bootstrap.grpc(List.of("127.0.0.1:" + xdsPort), "xds-server-it"));
    // gRPC reads its bootstrap from this file, as from GRPC_XDS_BOOTSTRAP.
    System.setProperty("io.grpc.xds.bootstrap", bootstrap.toString());
    send(Topics.FORWARDING_RULES, "fr-use1", rule("fr-use1", "us-east1", use1.port()));
    send(Topics.FORWARDING_RULES, "fr-euw1", rule("fr-euw1", "europe-west1", euw1.port()));
    send(Topics.BACKEND_SERVICES, "orders-global", consumer("orders-global",
        neg("psc-use1", "us-east1", "fr-use1"), neg("psc-euw1", "europe-west1", "fr-euw1")));
  }

  @AfterAll
  static void stop() {
    use1.close();
    euw1.close();
    registry.close();
    kafka.close();
  }

  @Test
  void callsFollowTheDecision_whenTheCompositeFlipsAndHeals() throws Exception {
    try (XdsApp xds = xds(); Calls calls = new Calls("orders-global")) {
      // R-XDS-4: no decision yet, every NEG UNKNOWN: the service's own order.
      calls.awaitOnly("us-east1");
      decide("orders-global", List.of("europe-west1"), HealthStatus.UNHEALTHY, HealthStatus.HEALTHY);
      calls.awaitOnly("europe-west1");
      assertThat(calls.lastTen()).containsOnly("europe-west1");
      decide("orders-global", List.of("us-east1", "europe-west1"), HealthStatus.HEALTHY, HealthStatus.HEALTHY);
      calls.awaitOnly("us-east1");
      // R-XDS-3: UNKNOWN regions take traffic when none is HEALTHY, as R-CH-8 decides.
      decide("orders-global", List.of("europe-west1"), HealthStatus.UNKNOWN, HealthStatus.UNKNOWN);
      calls.awaitOnly("europe-west1");
      // Every NEG UNHEALTHY: R-CH-8 fails open, and so must the clients (R-XDS-3).
      decide("orders-global", List.of("us-east1", "europe-west1"), HealthStatus.UNHEALTHY, HealthStatus.UNHEALTHY);
      calls.awaitOnly("us-east1");
      var report = xds.status();
      assertThat(report.getReady()).isTrue();
      assertThat(report.getClients()).anySatisfy(c -> assertThat(c.getTypes()).allSatisfy(t -> {
        assertThat(t.getAckedVersion()).isEqualTo(t.getSentVersion());
        assertThat(t.getNacks()).isZero();
      }));
      assertThat(xds.clients()).anySatisfy(c -> {
        assertThat(c.node()).isEqualTo("xds-server-it");
        assertThat(c.types()).containsKeys("Listener", "RouteConfiguration", "Cluster", "ClusterLoadAssignment");
        assertThat(c.types().get("ClusterLoadAssignment").nacks()).isZero();
      });
    }
  }

  @Test
  void aRestartedServerLosesNoDecision_whenClientsReconnect() throws Exception {
    decide("orders-global", List.of("europe-west1"), HealthStatus.UNHEALTHY, HealthStatus.HEALTHY);
    try (Calls calls = new Calls("orders-global")) {
      try (XdsApp xds = xds()) {
        calls.awaitOnly("europe-west1");
      }
      // While no xDS server runs, the client keeps what it was sent.
      assertThat(calls.lastTen()).containsOnly("europe-west1");
      decide("orders-global", List.of("us-east1", "europe-west1"), HealthStatus.HEALTHY, HealthStatus.HEALTHY);
      try (XdsApp xds = xds()) {
        calls.awaitOnly("us-east1");
      }
    }
  }

  @Test
  void unknownServiceFailsClearly_andIsCounted_whenAClientAsksForIt() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (XdsApp xds = xds(meters); Calls calls = new Calls("no-such-service")) {
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(meters.find("healthmesh.xds.unknown.resources").counters().stream()
              .mapToDouble(io.micrometer.core.instrument.Counter::count).sum()).isPositive());
      StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
          () -> RegionService.which(calls.channel, 1_000));
      assertThat(e.getStatus().getCode()).isIn(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED);
    }
  }

  @Test
  void badConsumersAreNotServedWrong_whenRegionsRepeatOrRulesAreUnknown() throws Exception {
    send(Topics.BACKEND_SERVICES, "twice", consumer("twice", neg("a", "us-east1", "fr-use1"),
        neg("b", "us-east1", "fr-euw1")));
    send(Topics.BACKEND_SERVICES, "half", consumer("half", neg("a", "us-east1", "fr-nowhere"),
        neg("b", "europe-west1", "fr-euw1")));
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (XdsApp xds = xds(meters); Calls half = new Calls("half")) {
      // R-XDS-2: the NEG whose rule is unknown is left out, the other serves; the duplicate is refused whole.
      half.awaitOnly("europe-west1");
      assertThat(xds.leftOut()).containsKey("half");
      assertThat(xds.leftOut().get("half").get(0)).contains("fr-nowhere").contains("R-XDS-2");
      assertThat(meters.get("healthmesh.xds.records.rejected").functionCounter().count()).isGreaterThanOrEqualTo(1);
      assertThat(meters.get("healthmesh.xds.negs.left.out").gauge().value()).isEqualTo(1);
    }
  }

  @Test
  void aFlipPushesOnlyTheChangedAssignment_toTheStreamsSubscribedToIt() throws Exception { // R-XDS-5
    send(Topics.BACKEND_SERVICES, "other-global", consumer("other-global",
        neg("psc-use1", "us-east1", "fr-use1"), neg("psc-euw1", "europe-west1", "fr-euw1")));
    try (XdsApp xds = xds(); RawStreams raw = new RawStreams(xdsPort)) {
      raw.subscribe("other-global");
      assertThat(raw.sotw.poll(10, TimeUnit.SECONDS).getResourcesCount()).isEqualTo(1);
      assertThat(raw.delta.poll(10, TimeUnit.SECONDS).getResourcesCount()).isEqualTo(1);
      decide("orders-global", List.of("europe-west1"), HealthStatus.UNHEALTHY, HealthStatus.HEALTHY);
      decide("orders-global", List.of("us-east1"), HealthStatus.HEALTHY, HealthStatus.UNHEALTHY);
      // Neither stream asked for orders-global: it is sent nothing.
      assertThat(raw.sotw.poll(1, TimeUnit.SECONDS)).isNull();
      assertThat(raw.delta.poll(1, TimeUnit.SECONDS)).isNull();
      decide("other-global", List.of("europe-west1"), HealthStatus.UNHEALTHY, HealthStatus.HEALTHY);
      DiscoveryResponse sotw = raw.sotw.poll(10, TimeUnit.SECONDS);
      DeltaDiscoveryResponse delta = raw.delta.poll(10, TimeUnit.SECONDS);
      assertThat(sotw.getResourcesCount()).isEqualTo(1);
      assertThat(delta.getResourcesCount()).isEqualTo(1);
      ClusterLoadAssignment cla = delta.getResources(0).getResource().unpack(ClusterLoadAssignment.class);
      assertThat(cla.getClusterName()).isEqualTo("other-global");
      assertThat(cla.getEndpoints(0).getLocality().getRegion()).isEqualTo("europe-west1");
      assertThat(cla.getEndpoints(0).getPriority()).isZero();
      assertThat(sotw.getResources(0).unpack(ClusterLoadAssignment.class)).isEqualTo(cla);
    }
  }

  /** A state-of-the-world and a delta ADS stream, each subscribed to one load assignment, acknowledging all. */
  static final class RawStreams implements AutoCloseable {
    final BlockingQueue<DiscoveryResponse> sotw = new LinkedBlockingQueue<>();
    final BlockingQueue<DeltaDiscoveryResponse> delta = new LinkedBlockingQueue<>();
    private final ManagedChannel channel;
    private StreamObserver<DiscoveryRequest> sotwOut;
    private StreamObserver<DeltaDiscoveryRequest> deltaOut;

    RawStreams(int port) {
      channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    }

    void subscribe(String cluster) {
      var stub = AggregatedDiscoveryServiceGrpc.newStub(channel);
      Node node = Node.newBuilder().setId("raw-" + cluster).build();
      sotwOut = stub.streamAggregatedResources(observer(r -> {
        sotw.add(r);
        sotwOut.onNext(DiscoveryRequest.newBuilder().setTypeUrl(Resources.V3.ENDPOINT_TYPE_URL)
            .addResourceNames(cluster).setVersionInfo(r.getVersionInfo()).setResponseNonce(r.getNonce()).build());
      }));
      sotwOut.onNext(DiscoveryRequest.newBuilder().setNode(node).setTypeUrl(Resources.V3.ENDPOINT_TYPE_URL)
          .addResourceNames(cluster).build());
      deltaOut = stub.deltaAggregatedResources(observer(r -> {
        delta.add(r);
        deltaOut.onNext(DeltaDiscoveryRequest.newBuilder().setTypeUrl(Resources.V3.ENDPOINT_TYPE_URL)
            .setResponseNonce(r.getNonce()).build());
      }));
      deltaOut.onNext(DeltaDiscoveryRequest.newBuilder().setNode(node).setTypeUrl(Resources.V3.ENDPOINT_TYPE_URL)
          .addResourceNamesSubscribe(cluster).build());
    }

    private static <T> StreamObserver<T> observer(java.util.function.Consumer<T> next) {
      return new StreamObserver<>() {
        @Override
        public void onNext(T value) {
          next.accept(value);
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {}
      };
    }

    @Override
    public void close() {
      channel.shutdownNow();
    }
  }

  private static XdsApp xds() {
    return xds(new SimpleMeterRegistry());
  }

  private static XdsApp xds(SimpleMeterRegistry meters) {
    Properties p = new Properties();
    p.setProperty(XdsSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    p.setProperty(XdsSettings.SCHEMA_REGISTRY_URL, registry.url());
    p.setProperty(XdsSettings.PORT, String.valueOf(xdsPort));
    p.setProperty("metrics.port", "0");
    XdsApp xds = XdsApp.start(XdsSettings.from(p), client, meters);
    await().atMost(Duration.ofSeconds(30)).until(xds::ready);
    return xds;
  }

  /** A proxyless gRPC client calling {@code xds:///NAME} every 50 ms. */
  static final class Calls implements AutoCloseable {
    final ManagedChannel channel;
    private final java.util.concurrent.ConcurrentLinkedDeque<String> answers = new java.util.concurrent.ConcurrentLinkedDeque<>();
    private final Thread thread;
    private volatile boolean running = true;

    Calls(String name) {
      channel = ManagedChannelBuilder.forTarget("xds:///" + name).usePlaintext().build();
      thread = new Thread(() -> {
        while (running) {
          try {
            answers.add(RegionService.which(channel, 2_000));
          } catch (StatusRuntimeException e) {
            answers.add("error: " + e.getStatus().getCode());
          }
          try {
            Thread.sleep(50);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "xds-calls-" + name);
      thread.setDaemon(true);
      thread.start();
    }

    void awaitOnly(String region) {
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> region.equals(answers.peekLast()));
      answers.clear();
      // Every call after the move reaches the region: the client follows the decision, not a mix.
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> answers.size() >= 5);
      assertThat(List.copyOf(answers)).containsOnly(region);
    }

    List<String> lastTen() {
      List<String> all = List.copyOf(answers);
      return all.subList(Math.max(0, all.size() - 10), all.size());
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      thread.interrupt();
      thread.join(3000);
      channel.shutdownNow();
    }
  }

  private static void decide(String consumer, List<String> active, HealthStatus use1State, HealthStatus euw1State)
      throws Exception {
    send(Topics.CONSUMER_FAILOVER, consumer, new ConsumerFailover(Instant.now(), active, List.of(
        new NegState("psc-use1", "us-east1", use1State), new NegState("psc-euw1", "europe-west1", euw1State))));
  }

  static ForwardingRule rule(String name, String region, int port) {
    return ForwardingRule.newBuilder().setName(name).setRegion(region).setIpAddress("127.0.0.1").setPort(port)
        .setBackendService("orders-" + region).setPublishedService(true).build();
  }

  static BackendService consumer(String name, PscBackend... negs) {
    return BackendService.newBuilder().setName(name).setBackendType(BackendType.PRIVATE_SERVICE_CONNECT)
        .setHealthCheck(HealthCheckSpec.newBuilder().build()).setPscBackends(List.of(negs)).build();
  }

  static PscBackend neg(String name, String region, String rule) {
    return PscBackend.newBuilder().setNegName(name).setRegion(region).setForwardingRule(rule).build();
  }

  private static <V extends SpecificRecord> void send(Topic<String, V> topic, String key, V value) throws Exception {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, V> producer = new KafkaProducer<>(props, topic.keySerde(client).serializer(),
        topic.valueSerde(client).serializer())) {
      producer.send(new ProducerRecord<>(topic.name(), key, value)).get();
    }
  }
}
