package io.healthmesh.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.NegState;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's HAProxy under the adapter: HTTP requests through it reach the region each failover
 * decision in {@code consumer-failover} says, after a restart of HAProxy too, and a server an
 * operator set by hand is left alone.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class HaproxyIT {
  private static EmbeddedKafka kafka;
  private static SchemaRegistry registry;
  private static SchemaRegistryClient client;
  private static HttpServer use1;
  private static HttpServer euw1;
  @TempDir
  Path dir;
  private Process haproxy;
  private int frontend;
  private int admin;

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.builder().partitions(2).start();
    registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()));
    client = new RestSchemaRegistryClient(registry.url());
    use1 = backend("us-east1");
    euw1 = backend("europe-west1");
  }

  @AfterAll
  static void stop() {
    use1.stop(0);
    euw1.stop(0);
    registry.close();
    kafka.close();
  }

  @BeforeEach
  void startHaproxy() throws Exception {
    assertThat(Path.of("/usr/sbin/haproxy")).as("Debian's haproxy (installed by .ci/run)").exists();
    frontend = freePort();
    admin = freePort();
    Files.writeString(dir.resolve("haproxy.cfg"), """
        global
          stats socket ipv4@127.0.0.1:%d level admin
        defaults
          mode http
          timeout connect 1s
          timeout client 5s
          timeout server 5s
        frontend consumers
          bind 127.0.0.1:%d
          default_backend orders-global
        backend orders-global
          balance roundrobin
          server orders-psc-use1 127.0.0.1:%d
          server orders-psc-euw1 127.0.0.1:%d
        """.formatted(admin, frontend, use1.getAddress().getPort(), euw1.getAddress().getPort()));
    launchHaproxy();
  }

  @AfterEach
  void stopHaproxy() throws InterruptedException {
    haproxy.destroy();
    haproxy.waitFor();
  }

  @Test
  void requestsFollowTheDecision_whenItFailsOverAndBack() throws Exception { // R-HAP-1
    try (HaproxyAdapter adapter = adapter(new SimpleMeterRegistry())) {
      decide(List.of("us-east1", "europe-west1"), HealthStatus.HEALTHY, HealthStatus.HEALTHY);
      awaitOnly("us-east1");
      decide(List.of("europe-west1"), HealthStatus.UNHEALTHY, HealthStatus.HEALTHY);
      awaitOnly("europe-west1");
      assertThat(runtime("show servers state orders-global")).contains("orders-psc-use1");
      assertThat(ServerState.parse(runtime("show servers state orders-global")).get("orders-global").get("orders-psc-use1").admin())
          .isEqualTo(ServerState.Admin.maint);
      decide(List.of("us-east1", "europe-west1"), HealthStatus.HEALTHY, HealthStatus.HEALTHY);
      awaitOnly("us-east1");
      assertThat(adapter.ready()).isTrue();
      assertThat(adapter.problems()).isEmpty();
    }
  }

  @Test
  void aRestartedHaproxyIsSetAgain_withinOneInterval() throws Exception { // R-HAP-2
    decide(List.of("europe-west1"), HealthStatus.UNHEALTHY, HealthStatus.HEALTHY);
    try (HaproxyAdapter adapter = adapter(new SimpleMeterRegistry())) {
      awaitOnly("europe-west1");
      haproxy.destroy();
      haproxy.waitFor();
      launchHaproxy(); // its configuration's states again: both servers ready
      awaitOnly("europe-west1");
    }
  }

  @Test
  void aServerSetByHandIsLeftAloneAndReported_untilItIsBack() throws Exception { // R-HAP-3
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    decide(List.of("us-east1", "europe-west1"), HealthStatus.HEALTHY, HealthStatus.HEALTHY);
    try (HaproxyAdapter adapter = adapter(meters)) {
      awaitOnly("us-east1");
      // An operator drains us-east1 by hand: the adapter must not put it back.
      assertThat(runtime("set server orders-global/orders-psc-use1 state maint")).isBlank();
      await().atMost(Duration.ofSeconds(10))
          .until(() -> meters.get("healthmesh.haproxy.servers.overridden").gauge().value() == 1);
      Thread.sleep(1_500); // more than an interval: a fight would show now
      assertThat(ServerState.parse(runtime("show servers state orders-global")).get("orders-global").get("orders-psc-use1").admin())
          .isEqualTo(ServerState.Admin.maint);
      assertThat(runtime("set server orders-global/orders-psc-use1 state ready")).isBlank();
      await().atMost(Duration.ofSeconds(10))
          .until(() -> meters.get("healthmesh.haproxy.servers.overridden").gauge().value() == 0);
      decide(List.of("europe-west1"), HealthStatus.UNHEALTHY, HealthStatus.HEALTHY);
      awaitOnly("europe-west1");
    }
  }

  @Test
  void aNegWithoutServerIsReported_whileTheOthersFollowTheDecision() throws Exception { // R-HAP-1
    try (HaproxyAdapter adapter = adapter(new SimpleMeterRegistry())) {
      send("orders-global", new ConsumerFailover(Instant.now(), List.of("europe-west1", "asia-east1"), List.of(
          new NegState("orders-psc-use1", "us-east1", HealthStatus.UNHEALTHY),
          new NegState("orders-psc-euw1", "europe-west1", HealthStatus.HEALTHY),
          new NegState("orders-psc-asia", "asia-east1", HealthStatus.HEALTHY))));
      awaitOnly("europe-west1");
      await().atMost(Duration.ofSeconds(10)).until(() -> adapter.problems().stream()
          .anyMatch(p -> p.contains("orders-psc-asia") && p.contains("R-HAP-1")));
    }
  }

  private HaproxyAdapter adapter(SimpleMeterRegistry meters) {
    Properties p = new Properties();
    p.setProperty(HaproxySettings.RUNTIME_API, "127.0.0.1:" + admin);
    p.setProperty(HaproxySettings.INTERVAL_MS, "500");
    p.setProperty(HaproxySettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    p.setProperty(HaproxySettings.SCHEMA_REGISTRY_URL, registry.url());
    return HaproxyAdapter.start(HaproxySettings.from(p), client, meters);
  }

  private void launchHaproxy() throws Exception {
    haproxy = new ProcessBuilder("/usr/sbin/haproxy", "-db", "-f", dir.resolve("haproxy.cfg").toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("haproxy.log").toFile()).start();
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> runtime("show info").contains("Pid:"));
  }

  /** Until ten requests in a row through HAProxy are answered by {@code region}. */
  private void awaitOnly(String region) {
    await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).until(() -> {
      List<String> answers = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        answers.add(get());
      }
      return answers.stream().allMatch(region::equals);
    });
  }

  /** One HTTP/1.0 request (a connection each, so HAProxy balances every one). */
  private String get() throws IOException {
    try (Socket s = new Socket("127.0.0.1", frontend)) {
      s.getOutputStream().write("GET / HTTP/1.0\r\nHost: orders\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return response.substring(response.indexOf("\r\n\r\n") + 4).trim();
    }
  }

  private String runtime(String command) throws IOException {
    return new RuntimeApi("127.0.0.1:" + admin, Duration.ofSeconds(2)).run(command).trim();
  }

  private static void decide(List<String> active, HealthStatus use1State, HealthStatus euw1State) throws Exception {
    send("orders-global", new ConsumerFailover(Instant.now(), active, List.of(
        new NegState("orders-psc-use1", "us-east1", use1State), new NegState("orders-psc-euw1", "europe-west1", euw1State))));
  }

  private static void send(String key, ConsumerFailover value) throws Exception {
    try (KafkaProducer<String, ConsumerFailover> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
        Topics.CONSUMER_FAILOVER.keySerde(client).serializer(), Topics.CONSUMER_FAILOVER.valueSerde(client).serializer())) {
      producer.send(new ProducerRecord<>(Topics.CONSUMER_FAILOVER.name(), key, value)).get();
    }
  }

  private static HttpServer backend(String region) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
      server.createContext("/", exchange -> {
        byte[] body = region.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      });
      server.start();
      return server;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

}
