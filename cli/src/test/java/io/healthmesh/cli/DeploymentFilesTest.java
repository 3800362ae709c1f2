package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.cli.config.Catalog;
import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.cli.config.ResourceReader;
import io.healthmesh.cli.config.Validator;
import io.healthmesh.config.BackendService;
import io.healthmesh.config.Endpoint;
import io.healthmesh.edge.EdgeSettings;
import io.healthmesh.observability.MetricsSettings;
import io.healthmesh.streams.StreamsSettings;
import io.healthmesh.xds.XdsSettings;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;

/**
 * docker-compose.yml cannot run here (no Docker engine), so it is checked statically: it parses,
 * images are pinned, files it mounts exist, every healthmesh command parses and its settings are
 * valid, and ports and addresses agree with Prometheus, the healthchecks and the sample config.
 */
class DeploymentFilesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Set<String> OUR_ENV = Set.of("HEALTHMESH_BOOTSTRAP_SERVERS", "HEALTHMESH_SCHEMA_REGISTRY_URL");
  private static final Pattern HEALTH_URL = Pattern.compile("http://localhost:(\\d+)/health/ready");

  @SuppressWarnings("unchecked")
  private static Map<String, Map<String, Object>> services() throws Exception {
    try (InputStream in = Files.newInputStream(ROOT.resolve("docker-compose.yml"))) {
      Map<String, Object> compose = new Yaml().load(in);
      return (Map<String, Map<String, Object>>) compose.get("services");
    }
  }

  @Test
  void pinsEveryImage_andBuildsOursFromTheRepository() throws Exception {
    services().forEach((name, s) -> {
      String image = (String) s.get("image");
      assertThat(image).as(name).isNotNull().contains(":").doesNotEndWith(":latest");
      if (s.containsKey("build")) {
        assertThat(ROOT.resolve(s.get("build") + "/Dockerfile")).as(name).exists();
      }
    });
    String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
    for (Matcher m = Pattern.compile("(?m)^FROM (\\S+)").matcher(dockerfile); m.find(); ) {
      assertThat(m.group(1)).contains(":").doesNotEndWith(":latest");
    }
    for (Matcher m = Pattern.compile("(?m)^COPY (?!--from)(\\S+) ").matcher(dockerfile); m.find(); ) {
      assertThat(ROOT.resolve(m.group(1))).exists();
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void mountsFilesThatExist_andWaitsOnlyForHealthyOrCompletedServices() throws Exception {
    Map<String, Map<String, Object>> services = services();
    services.forEach((name, s) -> {
      for (Object volume : (List<Object>) s.getOrDefault("volumes", List.of())) {
        String host = volume.toString().split(":")[0];
        if (host.startsWith("./")) {
          assertThat(ROOT.resolve(host)).as(name + " mounts " + host).exists();
        }
      }
      Map<String, Map<String, String>> dependsOn = (Map<String, Map<String, String>>) s.getOrDefault("depends_on", Map.of());
      dependsOn.forEach((other, condition) -> {
        assertThat(services).as(name + " depends on " + other).containsKey(other);
        String when = condition.get("condition");
        assertThat(when).isIn("service_healthy", "service_completed_successfully");
        if (when.equals("service_healthy")) {
          assertThat(services.get(other)).as(other + " needs a healthcheck").containsKey("healthcheck");
        }
      });
    });
    assertThat(Files.readString(ROOT.resolve("grafana/provisioning/dashboards/healthmesh.yml")))
        .contains("path: /var/lib/grafana/dashboards");
    assertThat((List<String>) services.get("grafana").get("volumes"))
        .contains("./grafana/dashboards:/var/lib/grafana/dashboards:ro", "./grafana/provisioning:/etc/grafana/provisioning:ro");
  }

  @Test
  @SuppressWarnings("unchecked")
  void runsHealthctlCommandsThatParse_withValidSettings_andOnlyTheEnvironmentItReads() throws Exception {
    Map<String, Integer> metricsPorts = new HashMap<>();
    services().forEach((name, s) -> {
      if (!"healthmesh:0.1.0".equals(s.get("image"))) {
        return;
      }
      assertThat(((Map<String, Object>) s.get("environment")).keySet()).as(name).isSubsetOf(OUR_ENV);
      List<String> command = (List<String>) s.get("command");
      CommandLine cli = Healthctl.commandLine();
      CommandLine.ParseResult parsed = cli.parseArgs(command.toArray(String[]::new)); // throws on unknown options
      while (parsed.hasSubcommand()) {
        parsed = parsed.subcommand();
      }
      Properties settings = new Properties();
      command.stream().filter(a -> a.contains("=") && !a.startsWith("-")).forEach(a ->
          settings.setProperty(a.substring(0, a.indexOf('=')), a.substring(a.indexOf('=') + 1)));
      settings.setProperty("bootstrap.servers", "kafka:9092");
      settings.setProperty("schema.registry.url", "http://schema-registry:8081");
      int port;
      switch (command.get(0)) {
        case "topology" -> port = StreamsSettings.from(settings).metrics().port();
        case "edge" -> {
          EdgeSettings edge = EdgeSettings.from(settings);
          port = edge.metrics().port();
          assertThat((List<String>) s.get("ports")).as(name).contains(
              "127.0.0.1:" + edge.port() + ":" + edge.port() + "/udp", "127.0.0.1:" + edge.port() + ":" + edge.port() + "/tcp");
        }
        case "probe" -> port = parsed.matchedOptionValue("--metrics-port", 9405);
        case "xds" -> {
          XdsSettings xds = XdsSettings.from(settings);
          port = xds.metrics().port();
          assertThat((List<String>) s.get("ports")).as(name).contains("127.0.0.1:" + xds.port() + ":" + xds.port());
        }
        default -> port = -1; // one-shots serve nothing
      }
      if (port > 0) {
        metricsPorts.put(name, port);
        String health = String.join(" ", (List<String>) ((Map<String, Object>) s.get("healthcheck")).get("test"));
        Matcher m = HEALTH_URL.matcher(health);
        assertThat(m.find()).as(name + " healthcheck").isTrue();
        assertThat(Integer.parseInt(m.group(1))).as(name + " healthcheck port").isEqualTo(port);
      }
    });
    assertThat(metricsPorts).containsKeys("topology", "edge-us-east1", "edge-europe-west1", "xds", "prober");

    String prometheus = Files.readString(ROOT.resolve("grafana/prometheus.yml"));
    Set<String> scraped = new TreeSet<>();
    for (Matcher m = Pattern.compile("\"([a-z0-9-]+):(\\d+)\"").matcher(prometheus); m.find(); ) {
      assertThat(metricsPorts).as("scrape target " + m.group()).containsEntry(m.group(1), Integer.parseInt(m.group(2)));
      scraped.add(m.group(1));
    }
    assertThat(scraped).isEqualTo(metricsPorts.keySet());
    assertThat(MetricsSettings.PORT).isEqualTo("metrics.port");
  }

  @Test
  @SuppressWarnings("unchecked")
  void loadsAValidConfiguration_whoseEndpointsAreTheBackendContainers() throws Exception {
    Map<String, Map<String, Object>> services = services();
    List<String> loader = (List<String>) services.get("config-loader").get("command");
    String file = loader.get(loader.indexOf("-f") + 1);
    assertThat(file).startsWith("/app/examples/");
    Path local = ROOT.resolve("examples").resolve(file.substring("/app/examples/".length()));
    ResourceReader.Read read = ResourceReader.load(List.of(local.toString()), InputStream.nullInputStream());
    assertThat(read.problems()).isEmpty();
    assertThat(Validator.check(new Catalog(), read.resources())).isEmpty();

    List<String> endpoints = new ArrayList<>();
    read.resources().stream().filter(r -> r.kind() == ResourceKind.BACKEND_SERVICE)
        .forEach(r -> ((BackendService) r.value()).getEndpoints().stream().map(Endpoint::getIpAddress).forEach(endpoints::add));
    List<String> backends = new ArrayList<>();
    services.values().forEach(s -> {
      Object networks = s.get("networks");
      if (networks instanceof Map<?, ?> map && map.get("healthmesh") instanceof Map<?, ?> net) {
        backends.add((String) net.get("ipv4_address"));
      }
    });
    assertThat(endpoints).containsExactlyInAnyOrderElementsOf(backends);
  }

  @Test
  void describesEveryPanel_andFiltersEveryDashboardByEdgeAndRegion() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    List<Path> dashboards;
    try (var files = Files.list(ROOT.resolve("grafana/dashboards"))) {
      dashboards = files.filter(f -> f.toString().endsWith(".json")).toList();
    }
    assertThat(dashboards).hasSizeGreaterThanOrEqualTo(3);
    for (Path file : dashboards) {
      var dashboard = json.readTree(file.toFile());
      List<String> variables = new ArrayList<>();
      dashboard.get("templating").get("list").forEach(v -> variables.add(v.get("name").asText()));
      assertThat(variables).as(file.toString()).contains("edge", "region");
      for (var panel : dashboard.get("panels")) {
        String where = file.getFileName() + " / " + panel.path("title").asText();
        assertThat(panel.path("title").asText()).as(where).isNotBlank();
        assertThat(panel.path("description").asText()).as(where).isNotBlank();
        assertThat(panel.path("fieldConfig").path("defaults").path("unit").asText()).as(where).isNotBlank();
        assertThat(panel.path("datasource").path("uid").asText()).as(where).isEqualTo("prometheus");
        assertThat(panel.get("targets")).as(where).isNotEmpty();
      }
    }
    assertThat(Files.readString(ROOT.resolve("grafana/provisioning/datasources/prometheus.yml"))).contains("uid: prometheus");
  }
}
