package io.healthmesh.bench;

import io.envoyproxy.controlplane.cache.Resources;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
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
import io.healthmesh.xds.XdsSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The xDS server at scale (targets of #29): 10,000 consumer backend services over 3 regions, each
 * NEG on its own published service, and 1,000 ADS streams (half state of the world, half delta),
 * ten on each of 100 consumers' load assignments. A flip is a new failover decision written to
 * {@code consumer-failover} as the topology writes it; timed from the write to its arrival on
 * every stream subscribed to that consumer, with the bytes each flip cost and the responses that
 * reached streams not subscribed to it (should be none). Also: a fresh server's catch-up and the
 * memory it holds, as its own process with the launcher's flags.
 */
public final class XdsBenchmark {
  private static final int CONSUMERS = Integer.getInteger("bench.xds.consumers", 10_000);
  private static final int STREAMS = Integer.getInteger("bench.xds.streams", 1_000);
  private static final int WATCHED = 100;
  private static final int FLIPS = Integer.getInteger("bench.xds.flips", 200);
  private static final List<String> REGIONS = List.of("us-east1", "europe-west1", "asia-east1");

  private XdsBenchmark() {}

  public static void main(String[] args) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(4).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      populate(kafka, client);
      int port = freePort();
      int metricsPort = freePort();
      Path dir = Files.createTempDirectory("bench-xds");
      long t0 = System.nanoTime();
      // As the launcher runs it (healthctl xds): its own JVM, with the launcher's heap bound.
      List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx768m", "-XX:+UseG1GC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp",
          System.getProperty("java.class.path"), "io.healthmesh.xds.XdsMain",
          XdsSettings.BOOTSTRAP_SERVERS + "=" + kafka.bootstrapServers(),
          XdsSettings.SCHEMA_REGISTRY_URL + "=" + registry.url(), XdsSettings.PORT + "=" + port,
          "metrics.port=" + metricsPort));
      Process xds = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("xds.log").toFile())
          .start();
      try {
        awaitReady(metricsPort, xds);
        double catchUp = (System.nanoTime() - t0) / 1e9;
        String pid = String.valueOf(xds.pid());
        System.out.printf("%nxds: %,d consumer backend services, %,d forwarding rules, %,d decisions in the topics%n",
            CONSUMERS, CONSUMERS * REGIONS.size(), CONSUMERS);
        System.out.printf("fresh xDS server (its own JVM, -Xmx768m) ready after %.1f s from its start (target <= 10 s);"
            + " RSS %,d MB%n", catchUp, rss(pid) >> 20);
        flips(kafka, client, port);
        System.out.printf("xDS server RSS after the flips %,d MB, peak %,d MB (target <= 1,024 MB)%n", rss(pid) >> 20,
            ProcessStats.peakRssBytes(pid) >> 20);
      } finally {
        xds.destroy();
        xds.waitFor();
      }
    }
  }

  private static void flips(EmbeddedKafka kafka, SchemaRegistryClient client, int port) throws Exception {
    Map<String, Long> flippedAt = new ConcurrentHashMap<>();
    List<Long> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicLong bytes = new AtomicLong();
    AtomicLong stray = new AtomicLong();
    AtomicLong received = new AtomicLong();
    List<ManagedChannel> channels = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      channels.add(ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
    }
    AtomicLong deltaArrivals = new AtomicLong();
    Receiver receiver = (consumer, size, isDelta) -> {
      Long at = flippedAt.get(consumer);
      if (at == null) {
        stray.incrementAndGet();
        return;
      }
      latencies.add(System.nanoTime() - at);
      bytes.addAndGet(size);
      received.incrementAndGet();
      if (isDelta) {
        deltaArrivals.incrementAndGet();
      }
    };
    for (int s = 0; s < STREAMS; s++) {
      String consumer = name(s % WATCHED);
      var stub = AggregatedDiscoveryServiceGrpc.newStub(channels.get(s % channels.size()));
      if (s % 2 == 0) {
        sotw(stub, consumer, receiver);
      } else {
        delta(stub, consumer, receiver);
      }
    }
    Thread.sleep(5_000); // every stream has its first answer: those are not flips
    stray.set(0);
    int perFlip = STREAMS / WATCHED;
    try (KafkaProducer<String, ConsumerFailover> producer = producer(kafka, client, Topics.CONSUMER_FAILOVER)) {
      for (int f = 0; f < FLIPS; f++) {
        String consumer = name(f % WATCHED);
        long before = received.get();
        flippedAt.put(consumer, System.nanoTime());
        // The consumer's k-th flip: never the decision it already has, so every flip changes its assignment.
        producer.send(new ProducerRecord<>(Topics.CONSUMER_FAILOVER.name(), consumer, decision(f / WATCHED + 1))).get();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (received.get() < before + perFlip && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        flippedAt.remove(consumer);
        Thread.sleep(20);
      }
    }
    List<Long> sorted = new ArrayList<>(latencies);
    sorted.sort(null);
    System.out.printf("%,d flips to %,d streams (%d per consumer; half state of the world, half delta):"
        + " arrivals %,d of %,d; write -> stream p50 %.1f ms, p99 %.1f ms, max %.1f ms (target p99 <= 100 ms)%n",
        FLIPS, STREAMS, perFlip, sorted.size(), (long) FLIPS * perFlip, pct(sorted, 0.5), pct(sorted, 0.99),
        pct(sorted, 1.0));
    System.out.printf("arrivals on delta streams %,d, on state-of-the-world streams %,d%n", deltaArrivals.get(),
        sorted.size() - deltaArrivals.get());
    System.out.printf("bytes per flip %,d (%,d per subscribed stream); responses to streams not subscribed to the"
        + " flipped consumer: %d%n", bytes.get() / FLIPS, bytes.get() / Math.max(1, sorted.size()), stray.get());
    channels.forEach(ManagedChannel::shutdownNow);
  }

  @FunctionalInterface
  interface Receiver {
    void got(String consumer, int bytes, boolean delta);
  }

  private static void sotw(AggregatedDiscoveryServiceGrpc.AggregatedDiscoveryServiceStub stub, String consumer,
      Receiver receiver) {
    @SuppressWarnings("unchecked")
    StreamObserver<DiscoveryRequest>[] out = new StreamObserver[1];
    boolean[] first = {true};
    out[0] = stub.streamAggregatedResources(new Observer<>(r -> {
      if (!first[0]) {
        receiver.got(clusterOf(r.getResources(0)), r.getSerializedSize(), false);
      }
      first[0] = false;
      out[0].onNext(DiscoveryRequest.newBuilder().setTypeUrl(Resources.V3.ENDPOINT_TYPE_URL).addResourceNames(consumer)
          .setVersionInfo(r.getVersionInfo()).setResponseNonce(r.getNonce()).build());
    }));
    out[0].onNext(DiscoveryRequest.newBuilder().setNode(Node.newBuilder().setId("bench-" + consumer))
        .setTypeUrl(Resources.V3.ENDPOINT_TYPE_URL).addResourceNames(consumer).build());
  }

  private static void delta(AggregatedDiscoveryServiceGrpc.AggregatedDiscoveryServiceStub stub, String consumer,
      Receiver receiver) {
    @SuppressWarnings("unchecked")
    StreamObserver<DeltaDiscoveryRequest>[] out = new StreamObserver[1];
    boolean[] first = {true};
    out[0] = stub.deltaAggregatedResources(new Observer<>((DeltaDiscoveryResponse r) -> {
      if (!first[0]) {
        receiver.got(clusterOf(r.getResources(0).getResource()), r.getSerializedSize(), true);
      }
      first[0] = false;
      out[0].onNext(DeltaDiscoveryRequest.newBuilder().setTypeUrl(Resources.V3.ENDPOINT_TYPE_URL)
          .setResponseNonce(r.getNonce()).build());
    }));
    out[0].onNext(DeltaDiscoveryRequest.newBuilder().setNode(Node.newBuilder().setId("bench-" + consumer))
        .setTypeUrl(Resources.V3.ENDPOINT_TYPE_URL).addResourceNamesSubscribe(consumer).build());
  }

  private static String clusterOf(com.google.protobuf.Any any) {
    try {
      return any.unpack(ClusterLoadAssignment.class).getClusterName();
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final class Observer<T> implements StreamObserver<T> {
    private final java.util.function.Consumer<T> next;

    Observer(java.util.function.Consumer<T> next) {
      this.next = next;
    }

    @Override
    public void onNext(T value) {
      next.accept(value);
    }

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}
  }

  private static void populate(EmbeddedKafka kafka, SchemaRegistryClient client) throws Exception {
    try (var rules = producer(kafka, client, Topics.FORWARDING_RULES);
        var services = producer(kafka, client, Topics.BACKEND_SERVICES);
        var decisions = producer(kafka, client, Topics.CONSUMER_FAILOVER)) {
      for (int i = 0; i < CONSUMERS; i++) {
        List<PscBackend> negs = new ArrayList<>();
        for (int r = 0; r < REGIONS.size(); r++) {
          String rule = "fr-" + i + "-" + r;
          rules.send(new ProducerRecord<>(Topics.FORWARDING_RULES.name(), rule, ForwardingRule.newBuilder().setName(rule)
              .setRegion(REGIONS.get(r)).setIpAddress("10." + r + "." + (i >> 8 & 255) + "." + (i & 255)).setPort(8443)
              .setBackendService("svc-" + i + "-" + r).setPublishedService(true).build()));
          negs.add(PscBackend.newBuilder().setNegName("neg-" + r).setRegion(REGIONS.get(r)).setForwardingRule(rule).build());
        }
        services.send(new ProducerRecord<>(Topics.BACKEND_SERVICES.name(), name(i), BackendService.newBuilder()
            .setName(name(i)).setBackendType(BackendType.PRIVATE_SERVICE_CONNECT)
            .setHealthCheck(HealthCheckSpec.newBuilder().build()).setPscBackends(negs).build()));
        decisions.send(new ProducerRecord<>(Topics.CONSUMER_FAILOVER.name(), name(i), decision(0)));
      }
    }
  }

  /** The n-th decision: rotates which region is UNHEALTHY, so each one changes the load assignment. */
  private static ConsumerFailover decision(int n) {
    List<NegState> negs = new ArrayList<>();
    List<String> active = new ArrayList<>();
    for (int r = 0; r < REGIONS.size(); r++) {
      boolean down = r == n % REGIONS.size();
      negs.add(new NegState("neg-" + r, REGIONS.get(r), down ? HealthStatus.UNHEALTHY : HealthStatus.HEALTHY));
      if (!down) {
        active.add(REGIONS.get(r));
      }
    }
    return new ConsumerFailover(Instant.now(), active, negs);
  }

  private static String name(int i) {
    return "consumer-" + i;
  }

  private static <V extends SpecificRecord> KafkaProducer<String, V> producer(EmbeddedKafka kafka,
      SchemaRegistryClient client, Topic<String, V> topic) {
    return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.BATCH_SIZE_CONFIG, 262_144),
        topic.keySerde(client).serializer(), topic.valueSerde(client).serializer());
  }

  private static double pct(List<Long> sorted, double q) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1 < 0 ? 0
        : (int) Math.ceil(q * sorted.size()) - 1)) / 1e6;
  }

  /** Until the server's {@code /health/ready} answers 200: a snapshot from a whole read of the topics is served. */
  private static void awaitReady(int metricsPort, Process xds) throws Exception {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.net.http.HttpRequest ready = java.net.http.HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + metricsPort + "/health/ready")).build();
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (System.nanoTime() < deadline && xds.isAlive()) {
      try {
        if (http.send(ready, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (java.io.IOException e) {
        // not listening yet
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("the xDS server did not become ready (see its log)");
  }

  /** VmRSS of process {@code pid}. */
  private static long rss(String pid) throws java.io.IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
      }
    }
    return -1;
  }

  private static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
