package io.healthmesh.bench;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.healthmesh.edge.EdgeApp;
import io.healthmesh.edge.EdgeSettings;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.HealthStreamsApp;
import io.healthmesh.streams.StreamsSettings;
import io.healthmesh.xds.Bootstrap;
import io.healthmesh.xds.RegionService;
import io.healthmesh.xds.XdsApp;
import io.healthmesh.xds.XdsSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * The load balancer's path, as the DNS one is timed in {@link PropagationBenchmark}: from producing
 * the probe result that makes us-east1's composite UNHEALTHY (or HEALTHY again) to the first RPC
 * that gRPC's own xDS client sends to the other region, through the real broker, the topology
 * (exactly_once_v2), the xDS server and the client's priority failover. A client calls
 * {@code xds:///orders-global} in a loop; both regions' backends answer their region on loopback.
 * The configuration goes in through {@code healthctl apply}, probes as probers publish them; the
 * anchor in the same run is DNS: an edge answering a record set checked on the same load balancer.
 */
public final class XdsPropagationBenchmark {
  private static final int FLIPS = Integer.getInteger("bench.flips", 100);
  /** The published services' addresses: the gRPC backends listen there, and DNS answers them. */
  private static final String USE1 = "127.0.1.1";
  private static final String EUW1 = "127.0.2.1";
  private static volatile String lastAnswer = "";
  /** When the last decision for orders-global became readable in consumer-failover (nanoTime). */
  private static volatile long decidedAt;
  private static final List<Long> topologyPart = new ArrayList<>();

  private XdsPropagationBenchmark() {}

  public static void main(String[] args) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()));
        RegionService use1 = RegionService.start(USE1, 0, "us-east1");
        RegionService euw1 = RegionService.start(EUW1, 0, "europe-west1")) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      apply(kafka.bootstrapServers(), registry.url(), use1.port(), euw1.port());
      Properties sp = new Properties();
      sp.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      sp.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, registry.url());
      sp.setProperty(StreamsSettings.APPLICATION_ID, "bench-xds-propagation");
      sp.setProperty(StreamsSettings.STATE_DIR, Files.createTempDirectory("bench-xds-propagation").toString());
      sp.setProperty(StreamsSettings.COMMIT_INTERVAL_MS, System.getProperty("bench.commit.ms", "100"));
      // Otherwise the product's defaults, as users run it (healthmesh.change.commit.ms 10, so poll.ms 10).
      Properties ep = new Properties();
      ep.setProperty(EdgeSettings.REGION, "us-east1");
      ep.setProperty(EdgeSettings.PORT, "0");
      ep.setProperty(EdgeSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      ep.setProperty(EdgeSettings.SCHEMA_REGISTRY_URL, registry.url());
      Properties xp = new Properties();
      xp.setProperty(XdsSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      xp.setProperty(XdsSettings.SCHEMA_REGISTRY_URL, registry.url());
      xp.setProperty(XdsSettings.PORT, "0");
      try (HealthStreamsApp topology = HealthStreamsApp.start(StreamsSettings.from(sp), client, new SimpleMeterRegistry(),
              Duration.ofMinutes(2));
          XdsApp xds = XdsApp.start(XdsSettings.from(xp), client, new SimpleMeterRegistry());
          EdgeApp edge = EdgeApp.start(EdgeSettings.from(ep), client, new SimpleMeterRegistry());
          KafkaProducer<String, ProbeResult> probes = new KafkaProducer<>(Map.of(
              ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ProducerConfig.LINGER_MS_CONFIG, 0),
              Topics.PROBE_RESULTS.keySerde(client).serializer(), Topics.PROBE_RESULTS.valueSerde(client).serializer())) {
        edge.awaitReady(Duration.ofMinutes(2));
        SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", edge.port()));
        resolver.setTimeout(Duration.ofSeconds(1));
        Path bootstrap = Files.createTempFile("bench-grpc-xds", ".json");
        Files.writeString(bootstrap, Bootstrap.grpc(List.of("127.0.0.1:" + xds.port()), "bench"));
        System.setProperty("io.grpc.xds.bootstrap", bootstrap.toString());
        ManagedChannel channel = ManagedChannelBuilder.forTarget("xds:///orders-global").usePlaintext().build();
        Thread decisions = new Thread(() -> watchDecisions(kafka.bootstrapServers()), "bench-decisions");
        decisions.setDaemon(true);
        decisions.start();
        Thread caller = new Thread(() -> call(channel), "bench-rpc");
        caller.setDaemon(true);
        caller.start();
        // Both regions judged HEALTHY once, then the measured flips of us-east1.
        probe(probes, "svc-euw1", true);
        flip(probes, resolver, true, Duration.ofSeconds(60));
        flip(probes, resolver, false, Duration.ofSeconds(60));
        flip(probes, resolver, true, Duration.ofSeconds(60));
        List<Long> away = new ArrayList<>();
        List<Long> back = new ArrayList<>();
        List<Long> dns = new ArrayList<>();
        for (int i = 0; i < FLIPS; i++) {
          long[] times = flip(probes, resolver, i % 2 != 0, Duration.ofSeconds(10));
          (i % 2 == 0 ? away : back).add(times[0]);
          dns.add(times[1]);
        }
        Collections.sort(dns);
        List<Long> all = new ArrayList<>(away);
        all.addAll(back);
        Collections.sort(all);
        Collections.sort(away);
        List<Long> decided = new ArrayList<>(topologyPart.subList(topologyPart.size() - FLIPS, topologyPart.size()));
        Collections.sort(decided);
        System.out.printf("of which probe produced -> decision readable in consumer-failover (the topology): p50 %d ms,"
            + " p99 %d ms, max %d ms%n", decided.get(FLIPS / 2), decided.get((int) Math.ceil(FLIPS * 0.99) - 1),
            decided.get(FLIPS - 1));
        System.out.printf("%nprobe produced -> first RPC in the other region (gRPC's xDS client, exactly_once_v2, commit "
            + System.getProperty("bench.commit.ms", "100") + " ms), %d flips: p50 %d ms, p99 %d ms, max %d ms"
            + " (target p99 <= 300 ms); failing away alone: p50 %d ms, max %d ms%n", FLIPS, all.get(all.size() / 2),
            all.get((int) Math.ceil(all.size() * 0.99) - 1), all.get(all.size() - 1), away.get(away.size() / 2),
            away.get(away.size() - 1));
        System.out.printf("anchor, the same flips in DNS (probe produced -> the edge answers the other address; the"
            + " forwarding rule's state, one transaction): p50 %d ms, p99 %d ms, max %d ms; RPC/DNS p50 %.2f, p99 %.2f%n",
            dns.get(FLIPS / 2), dns.get((int) Math.ceil(FLIPS * 0.99) - 1), dns.get(FLIPS - 1),
            (double) all.get(all.size() / 2) / dns.get(FLIPS / 2),
            (double) all.get((int) Math.ceil(all.size() * 0.99) - 1) / dns.get((int) Math.ceil(FLIPS * 0.99) - 1));
        channel.shutdownNow();
      }
    }
  }

  private static void watchDecisions(String bootstrap) {
    try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, "isolation.level", "read_committed",
        "fetch.max.wait.ms", 200), new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
      var partitions = consumer.partitionsFor(Topics.CONSUMER_FAILOVER.name()).stream()
          .map(p -> new org.apache.kafka.common.TopicPartition(p.topic(), p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToEnd(partitions);
      while (!Thread.currentThread().isInterrupted()) {
        for (var r : consumer.poll(Duration.ofMillis(100))) {
          if ("orders-global".equals(new String(r.key(), java.nio.charset.StandardCharsets.UTF_8))) {
            decidedAt = System.nanoTime();
          }
        }
      }
    }
  }

  private static void call(ManagedChannel channel) {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        lastAnswer = RegionService.which(channel, 1_000, true);
      } catch (StatusRuntimeException e) {
        lastAnswer = "error";
      }
    }
  }

  /**
   * Probes us-east1's only endpoint; the times (ms) until the calls answered from the region the
   * decision then prefers, and until DNS answered that region's address.
   */
  private static long[] flip(KafkaProducer<String, ProbeResult> probes, SimpleResolver resolver, boolean up,
      Duration timeout) throws Exception {
    String wanted = up ? "us-east1" : "europe-west1";
    String address = up ? USE1 : EUW1;
    Message query = Message.newQuery(Record.newRecord(Name.fromConstantString("orders.bench.example."), Type.A,
        DClass.IN));
    long t0 = System.nanoTime();
    probe(probes, "svc-use1", up);
    long deadline = t0 + timeout.toNanos();
    long rpc = -1;
    long dns = -1;
    while ((rpc < 0 || dns < 0) && System.nanoTime() < deadline) {
      if (rpc < 0 && lastAnswer.equals(wanted)) {
        rpc = System.nanoTime();
      }
      if (dns < 0) {
        List<Record> answer = resolver.send(query).getSection(Section.ANSWER);
        if (!answer.isEmpty() && answer.get(0).rdataToString().equals(address)) {
          dns = System.nanoTime();
        }
      }
    }
    if (rpc < 0 || dns < 0) {
      throw new IllegalStateException((rpc < 0 ? "calls" : "DNS") + " did not move to " + wanted + " within " + timeout);
    }
    while (decidedAt < t0 && System.nanoTime() < deadline) {
      Thread.onSpinWait(); // the decision's arrival here can trail the client's by a poll
    }
    topologyPart.add((decidedAt - t0) / 1_000_000);
    return new long[] {(rpc - t0) / 1_000_000, (dns - t0) / 1_000_000};
  }

  private static void probe(KafkaProducer<String, ProbeResult> probes, String service, boolean up) throws Exception {
    Instant now = Instant.now();
    probes.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, now.toEpochMilli(), service,
        ProbeResult.newBuilder().setBackendService(service).setEndpointId("vm-1").setSuccess(up).setEventTime(now)
            .build())).get();
  }

  /** As an operator configures it: {@code healthctl apply -f} of one file. */
  private static void apply(String bootstrap, String registry, int use1Port, int euw1Port) throws Exception {
    String check = "{protocol: TCP, port: 50051, checkIntervalSec: 1, healthyThreshold: 1, unhealthyThreshold: 1,"
        + " staleAfterIntervals: 3600}";
    StringBuilder yaml = new StringBuilder();
    for (String[] r : List.of(new String[] {"use1", "us-east1", USE1, String.valueOf(use1Port)},
        new String[] {"euw1", "europe-west1", EUW1, String.valueOf(euw1Port)})) {
      yaml.append("""
          kind: BackendService
          name: svc-%1$s
          region: %2$s
          healthCheck: %5$s
          endpoints: [{id: vm-1, ipAddress: 10.0.0.1}]
          ---
          kind: HealthAggregationPolicy
          name: policy-%1$s
          region: %2$s
          healthyPercentThreshold: 50
          minHealthyThreshold: 1
          ---
          kind: HealthSource
          name: src-%1$s
          region: %2$s
          backendService: svc-%1$s
          healthAggregationPolicy: policy-%1$s
          ---
          kind: ForwardingRule
          name: fr-%1$s
          region: %2$s
          ipAddress: %3$s
          port: %4$s
          loadBalancerType: regionalL7ilb
          backendService: svc-%1$s
          publishedService: true
          ---
          kind: CompositeHealthCheck
          name: chc-%1$s
          region: %2$s
          healthSources: [src-%1$s]
          healthDestination: fr-%1$s
          ---
          """.formatted(r[0], r[1], r[2], r[3], check));
    }
    yaml.append("""
        kind: BackendService
        name: orders-global
        loadBalancingScheme: EXTERNAL_MANAGED
        backendType: PRIVATE_SERVICE_CONNECT
        healthCheck: %s
        pscBackends:
          - {negName: psc-use1, region: us-east1, forwardingRule: fr-use1}
          - {negName: psc-euw1, region: europe-west1, forwardingRule: fr-euw1}
        ---
        kind: ManagedZone
        name: bench
        dnsName: bench.example.
        networks: [127.0.0.0/8]
        ---
        kind: ResourceRecordSet
        zone: bench
        name: orders.bench.example.
        type: A
        ttl: 1
        routingPolicy:
          wrr:
            items:
              - weight: 100
                rrdatas: [%s]
                healthCheckedTargets:
                  internalLoadBalancers: [{forwardingRule: fr-use1}]
              - weight: 0
                rrdatas: [%s]
        """.formatted(check, USE1, EUW1));
    Path file = Files.createTempFile("bench-xds-propagation", ".yaml");
    Files.writeString(file, yaml);
    int exit = new picocli.CommandLine(new io.healthmesh.cli.Healthctl()).execute("apply", "-f", file.toString(),
        "--bootstrap-servers", bootstrap, "--schema-registry-url", registry);
    if (exit != 0) {
      throw new IllegalStateException("healthctl apply exited " + exit);
    }
  }
}
