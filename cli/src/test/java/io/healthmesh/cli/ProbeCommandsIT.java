package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.config.ResourceReader;
import io.healthmesh.cli.probe.Prober;
import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** probe publish and the active prober over a real broker, probing real sockets on loopback. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ProbeCommandsIT {
  private static Cli cli;

  @BeforeAll
  static void start() {
    cli = new Cli();
  }

  @AfterAll
  static void stop() {
    cli.close();
  }

  @Test
  void publishesOneResult_whenGivenFlags() {
    Cli.Run run = cli.run("probe", "publish", "--service", "flags-svc", "--endpoint", "vm-1", "--failure",
        "--detail", "HTTP 503", "--prober", "me");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("published 1, rejected 0");
    ConsumerRecord<String, ProbeResult> r = await(x -> "flags-svc".equals(x.key())).get(0);
    assertThat(r.value().getEndpointId()).isEqualTo("vm-1");
    assertThat(r.value().getSuccess()).isFalse();
    assertThat(r.value().getDetail()).isEqualTo("HTTP 503");
    assertThat(r.value().getProber()).isEqualTo("me");
  }

  @Test
  void publishesGoodLinesAndNamesBadOnes_whenReadingJsonLines() {
    String lines = """
        {"backendService":"lines-svc","endpointId":"vm-1","success":true,"eventTime":"2026-11-30T12:00:00Z"}
        {"backendService":"lines-svc","success":true}
        not json

        {"endpointId":"10.9.0.1","success":false,"latencyMicros":1500}
        {"backendService":"lines-svc","endpointId":"vm-2","success":"yes"}
        """;
    Cli.Run run = cli.runWithInput(lines, "probe", "publish", "-f", "-");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.out()).contains("published 2, rejected 3");
    assertThat(run.err()).contains("line 2: endpointId: required", "line 3: not JSON",
        "line 6: success: expected true or false, got 'yes'");
    assertThat(await(x -> "10.9.0.1".equals(x.key()))).singleElement()
        .satisfies(r -> assertThat(r.value().getBackendService()).isNull());
  }

  @Test
  void publishesAFileWithoutWaitingPerLine_andNamesTheLineTheBrokerRefused() {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 2_000; i++) {
      lines.append("{\"backendService\":\"bulk-svc\",\"endpointId\":\"vm-").append(i)
          .append("\",\"success\":true}\n");
    }
    // Larger than the producer's max.request.size (1 MB): refused, and said with its line.
    lines.append("{\"backendService\":\"bulk-svc\",\"endpointId\":\"vm-big\",\"success\":false,\"detail\":\"")
        .append("x".repeat(1_100_000)).append("\"}\n");
    Cli.Run run = cli.runWithInput(lines.toString(), "probe", "publish", "-f", "-");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.out()).contains("published 2000, rejected 0, not published 1");
    assertThat(run.err()).contains("line 2001: not published:");
    assertThat(await(x -> "bulk-svc".equals(x.key()) && x.value().getEndpointId().equals("vm-1999"))).hasSize(1);
  }

  @Test
  void checksEveryEndpointOverItsProtocol_andFollowsConfigChanges() throws Exception {
    HttpServer ok = http(200);
    HttpServer failing = http(503);
    try (ServerSocket open = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        ServerSocket closedSoon = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      int closed = closedSoon.getLocalPort();
      closedSoon.close();
      String yaml = """
          kind: BackendService
          name: web
          loadBalancingScheme: INTERNAL_MANAGED
          healthCheck: {protocol: HTTP, port: 1, requestPath: /healthz, checkIntervalSec: 1, timeoutSec: 1}
          endpoints:
            - {id: ok, ipAddress: 127.0.0.1, port: %d}
            - {id: failing, ipAddress: 127.0.0.1, port: %d}
          ---
          kind: BackendService
          name: tcp
          healthCheck: {protocol: TCP, port: %d, checkIntervalSec: 1, timeoutSec: 1}
          endpoints:
            - {id: open, ipAddress: 127.0.0.1}
            - {id: closed, ipAddress: 127.0.0.1, port: %d}
          ---
          kind: ManagedZone
          name: z
          dnsName: z.internal.
          networks: [127.0.0.0/8]
          ---
          kind: ResourceRecordSet
          zone: z
          name: ext.z.internal.
          type: A
          routingPolicy:
            healthCheck: {protocol: TCP, port: %d, checkIntervalSec: 1, timeoutSec: 1}
            wrr:
              items:
                - {weight: 1, rrdatas: [127.0.0.1], healthCheckedTargets: {externalEndpoints: [127.0.0.1]}}
          """.formatted(ok.getAddress().getPort(), failing.getAddress().getPort(), open.getLocalPort(), closed,
          open.getLocalPort());
      ConfigTopics config = new ConfigTopics(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
          cli.kafka.bootstrapServers()), new RestSchemaRegistryClient(cli.registry.url()));
      config.write(ResourceReader.read("t", new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).resources());

      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      try (Prober prober = new Prober(config, ProbeCommand.producer(ClusterOptions.of(cli.kafka.bootstrapServers(),
          cli.registry.url())), "it", 4, null, meters).start(Duration.ofMillis(500), Duration.ofMillis(500))) {
        assertThat(prober.targets()).isEqualTo(5);
        assertThat(latest("web", "ok")).satisfies(r -> {
          assertThat(r.getSuccess()).isTrue();
          assertThat(r.getDetail()).isEqualTo("HTTP 200");
          assertThat(r.getProber()).isEqualTo("it");
        });
        assertThat(latest("web", "failing")).satisfies(r -> {
          assertThat(r.getSuccess()).isFalse();
          assertThat(r.getDetail()).isEqualTo("HTTP 503, expected 200-399");
        });
        assertThat(latest("tcp", "open").getSuccess()).isTrue();
        assertThat(latest("tcp", "closed")).satisfies(r -> {
          assertThat(r.getSuccess()).isFalse();
          assertThat(r.getDetail()).contains("ConnectException");
        });
        assertThat(latest("127.0.0.1", "127.0.0.1").getSuccess()).isTrue();
        assertThat(meters.get("healthmesh_prober_check_lateness").timer().count()).as("each check's lateness")
            .isPositive();
        assertThat(await(r -> r.value().getType() == ProbeRecordType.HEARTBEAT && "it".equals(r.value().getProber())))
            .isNotEmpty();

        config.write(List.of(new io.healthmesh.cli.config.Resource(
            io.healthmesh.cli.config.ResourceKind.RESOURCE_RECORD_SET, "z/ext.z.internal./A", null, "t")));
        org.awaitility.Awaitility.await("the external endpoint is no longer checked").atMost(Duration.ofSeconds(15))
            .pollInterval(Duration.ofMillis(100)).until(prober::targets, n -> n == 4);
      }
    } finally {
      ok.stop(0);
      failing.stop(0);
    }
  }

  private static HttpServer http(int status) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/healthz", exchange -> {
      exchange.sendResponseHeaders(status, -1);
      exchange.close();
    });
    server.start();
    return server;
  }

  private static ProbeResult latest(String key, String endpoint) {
    List<ConsumerRecord<String, ProbeResult>> found = await(r -> key.equals(r.key())
        && endpoint.equals(r.value().getEndpointId()) && "it".equals(r.value().getProber()));
    return found.get(found.size() - 1).value();
  }

  /** The records of probe-results that {@code wanted} accepts, waiting up to 20 s for the first. */
  private static List<ConsumerRecord<String, ProbeResult>> await(Predicate<ConsumerRecord<String, ProbeResult>> wanted) {
    Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cli.kafka.bootstrapServers(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest", ConsumerConfig.GROUP_ID_CONFIG, "it-" + System.nanoTime());
    RestSchemaRegistryClient registry = new RestSchemaRegistryClient(cli.registry.url());
    try (KafkaConsumer<String, ProbeResult> consumer = new KafkaConsumer<>(props,
        Topics.PROBE_RESULTS.keySerde(registry).deserializer(), Topics.PROBE_RESULTS.valueSerde(registry).deserializer())) {
      consumer.subscribe(List.of(Topics.PROBE_RESULTS.name()));
      List<ConsumerRecord<String, ProbeResult>> found = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      long firstFound = 0;
      while (System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(300)).forEach(r -> {
          if (wanted.test(r)) {
            found.add(r);
          }
        });
        if (!found.isEmpty() && firstFound == 0) {
          firstFound = System.nanoTime();
        }
        // the prober keeps writing, so "caught up" may never hold; a second after the first match is enough
        if (!found.isEmpty() && (System.nanoTime() - firstFound > 1_000_000_000L || consumer.assignment().stream()
            .allMatch(tp -> consumer.position(tp) >= consumer.endOffsets(List.of(tp)).get(tp)))) {
          return found;
        }
      }
      throw new AssertionError("no such probe result within 20 s");
    }
  }
}
