package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.sun.net.httpserver.HttpServer;
import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.config.ResourceReader;
import io.healthmesh.cli.launch.Demo;
import io.healthmesh.cli.probe.Prober;
import io.healthmesh.observability.MetricsServer;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A real Prometheus (Debian package) scrapes the demo and a prober; every PromQL expression of the
 * dashboards and rules must return series, and the counters must count what was really sent.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PrometheusIT {
  private static final Path GRAFANA = Path.of("../grafana").toAbsolutePath().normalize();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void promtoolAcceptsTheConfigAndTheRules() throws Exception {
    assertThat(run("promtool", "check", "config", GRAFANA.resolve("prometheus.yml").toString())).isZero();
    assertThat(run("promtool", "check", "rules", GRAFANA.resolve("rules.yml").toString())).isZero();
  }

  @Test
  void everyDashboardAndRuleExpressionReturnsSeries_andCountersCountWhatWasSent(@TempDir Path dir) throws Exception {
    HttpServer backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    backend.createContext("/", e -> {
      e.sendResponseHeaders(200, -1);
      e.close();
    });
    backend.start();
    Process prometheus = null;
    try (Demo demo = Demo.start(dir.resolve("demo"), true, Demo.Ports.free())) {
      RestSchemaRegistryClient registry = new RestSchemaRegistryClient(demo.registryUrl());
      ConfigTopics config = new ConfigTopics(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, demo.bootstrap()), registry);
      config.write(ResourceReader.read("probed", new ByteArrayInputStream(("kind: BackendService\n"
          + "name: probed\nregion: local\nhealthCheck: {protocol: HTTP, port: " + backend.getAddress().getPort()
          + ", checkIntervalSec: 1}\nendpoints: [{id: a, ipAddress: 127.0.0.1}]\n").getBytes(StandardCharsets.UTF_8))).resources());
      PrometheusMeterRegistry proberMeters = MetricsServer.newRegistry("prober");
      try (MetricsServer proberMetrics = MetricsServer.start("127.0.0.1", 0, proberMeters, () -> true);
          Prober prober = new Prober(config, ProbeCommand.producer(ClusterOptions.of(demo.bootstrap(), demo.registryUrl())),
              "it", 2, "local", proberMeters).start(Duration.ofSeconds(1), Duration.ofSeconds(1))) {
        poisonPill(demo.bootstrap());
        int port = freePort();
        prometheus = startPrometheus(dir, port, demo, proberMetrics);
        String api = "http://127.0.0.1:" + port + "/api/v1/query?query=";
        awaitSeries(api, "up", 5, Duration.ofSeconds(60));
        // The counters exist from the start (at 0): wait for the poison pill's to count it.
        awaitSeries(api, "healthmesh_dead_letters_total > 0", 1, Duration.ofSeconds(30));
        awaitSeries(api, "healthmesh_prober_checks_total", 1, Duration.ofSeconds(30));

        int edgePort = demo.edges().get(0).port();
        query(edgePort, 20);
        Thread.sleep(4_000); // two scrapes after the queries, and rates have two samples

        List<String> failures = new ArrayList<>();
        expressions().forEach((where, expr) -> {
          try {
            JsonNode result = instant(api, expr);
            if (result.isEmpty()) {
              failures.add(where + ": no series for " + expr);
            }
          } catch (Exception e) {
            failures.add(where + ": " + e.getMessage() + " for " + expr);
          }
        });
        assertThat(failures).isEmpty();

        String sent = "sum(healthmesh_dns_queries_total{edge=\"edge-us-east1\"})";
        double before = value(instant(api, sent));
        query(edgePort, 50);
        await("the edge counted every query sent").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
            .until(() -> value(instant(api, sent)) - before, n -> n == 50);
        // entity gauges are counted at most every 5 s, then scraped: wait for them rather than race them
        awaitValue(api, "sum(healthmesh_entities{kind=\"COMPOSITE_HEALTH_CHECK\", state=\"HEALTHY\"})", 2);
        assertThat(value(instant(api, "sum(healthmesh_edge_ready)"))).isEqualTo(2);
        assertThat(value(instant(api, "sum(healthmesh_prober_targets)"))).isEqualTo(1);

        // both regions fail: api.example.internal answers fail-open, and the alert's expression fires
        demo.faults().fail("orders-use1");
        demo.faults().fail("orders-euw1");
        String failOpen = "sum(rate(healthmesh_dns_answers_total{reason=\"FAIL_OPEN\"}[1m])) > 0";
        await("fail-open answers counted").atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(500)).until(() -> {
          query(edgePort, 10);
          return !instant(api, failOpen).isEmpty();
        });
        awaitValue(api, "sum(healthmesh_entities{kind=\"COMPOSITE_HEALTH_CHECK\", state=\"UNHEALTHY\"})", 2);
      }
    } finally {
      if (prometheus != null) {
        prometheus.destroy();
        prometheus.waitFor(10, TimeUnit.SECONDS);
      }
      backend.stop(0);
    }
  }

  /** Every expression of the dashboards and rules, keyed by where it is; alert thresholds are cut off. */
  static Map<String, String> expressions() throws Exception {
    Map<String, String> found = new LinkedHashMap<>();
    try (var files = Files.list(GRAFANA.resolve("dashboards"))) {
      for (Path file : files.sorted().toList()) {
        for (JsonNode panel : JSON.readTree(file.toFile()).get("panels")) {
          for (JsonNode target : panel.get("targets")) {
            found.put(file.getFileName() + " / " + panel.get("title").asText() + " / " + target.get("refId").asText(),
                target.get("expr").asText().replace("$__rate_interval", "1m").replace("$edge", ".*")
                    .replace("$region", ".*"));
          }
        }
      }
    }
    for (JsonNode group : YAML.readTree(GRAFANA.resolve("rules.yml").toFile()).get("groups")) {
      for (JsonNode rule : group.get("rules")) {
        String name = rule.has("alert") ? rule.get("alert").asText() : rule.get("record").asText();
        // an alert on a healthy system returns nothing; what it compares must exist
        found.put("rules.yml / " + name, rule.get("expr").asText().replaceAll("\\s*(==|!=|>=|<=|>|<)\\s*[0-9.]+\\s*$", ""));
      }
    }
    return found;
  }

  private Process startPrometheus(Path dir, int port, Demo demo, MetricsServer prober) throws Exception {
    StringBuilder config = new StringBuilder("global: {scrape_interval: 1s, evaluation_interval: 1s}\n")
        .append("rule_files: [").append(GRAFANA.resolve("rules.yml")).append("]\nscrape_configs:\n");
    Map<String, List<String>> jobs = new LinkedHashMap<>();
    demo.metrics().forEach((component, server) -> jobs.computeIfAbsent(component.split(" ")[0], c -> new ArrayList<>())
        .add("127.0.0.1:" + server.port()));
    jobs.put("prober", List.of("127.0.0.1:" + prober.port()));
    jobs.forEach((job, targets) -> config.append("  - job_name: ").append(job).append("\n    static_configs: [{targets: [")
        .append(String.join(", ", targets.stream().map(t -> "'" + t + "'").toList())).append("]}]\n"));
    Path file = dir.resolve("prometheus.yml");
    Files.writeString(file, config);
    return new ProcessBuilder(prometheusBinary(), "--config.file=" + file, "--storage.tsdb.path=" + dir.resolve("tsdb"),
        "--web.listen-address=127.0.0.1:" + port).redirectErrorStream(true)
        .redirectOutput(dir.resolve("prometheus.log").toFile()).start();
  }

  private static String prometheusBinary() {
    for (String candidate : List.of("/usr/bin/prometheus", "/usr/local/bin/prometheus")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    throw new AssertionError("Prometheus is not installed: apt-get install prometheus (.ci/run does)");
  }

  private JsonNode instant(String api, String expr) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(api
        + URLEncoder.encode(expr, StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
    JsonNode body = JSON.readTree(response.body());
    if (!"success".equals(body.path("status").asText())) {
      throw new IllegalStateException(body.path("error").asText(response.body()));
    }
    return body.get("data").get("result");
  }

  private static double value(JsonNode result) {
    assertThat(result).hasSize(1);
    return Double.parseDouble(result.get(0).get("value").get(1).asText());
  }

  private void awaitValue(String api, String expr, double expected) {
    await(expr).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
      JsonNode result = instant(api, expr);
      return result.size() == 1 && value(result) == expected;
    });
  }

  /** Until Prometheus has {@code count} series of {@code expr}; errors while it starts count as not yet. */
  private void awaitSeries(String api, String expr, int count, Duration timeout) {
    await(count + " series of " + expr).atMost(timeout).pollInterval(Duration.ofMillis(500))
        .ignoreExceptionsMatching(e -> e instanceof java.io.IOException || e instanceof IllegalStateException)
        .until(() -> instant(api, expr).size() >= count);
  }

  private static void query(int port, int count) throws Exception {
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", port));
    Message query = Message.newQuery(Record.newRecord(Name.fromConstantString("api.example.internal."), Type.A, DClass.IN));
    for (int i = 0; i < count; i++) {
      resolver.send(query);
    }
  }

  /** A record that is not in the wire format, which the topology must dead-letter. */
  private static void poisonPill(String bootstrap) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrap), new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), "orders-use1".getBytes(StandardCharsets.UTF_8),
          "not avro".getBytes(StandardCharsets.UTF_8))).get();
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static int run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).inheritIO().start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return p.exitValue();
  }
}
