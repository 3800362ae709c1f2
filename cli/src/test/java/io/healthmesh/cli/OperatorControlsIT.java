package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.healthmesh.cli.launch.Demo;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * Operator controls (docs/rules.md section 7) through the whole pipeline of a running demo:
 * configuration applied with healthctl, results from the demo's prober or from {@code probe
 * publish}, the topology, the edges, and answers to a DNS client.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OperatorControlsIT {
  private static final String CONFIG = """
      kind: BackendService
      name: flappy
      region: us-east1
      loadBalancingScheme: INTERNAL_MANAGED
      backendType: GCE_VM_IP_PORT
      healthCheck: {checkIntervalSec: 1, healthyThreshold: 1, unhealthyThreshold: 1,
                    flapDamping: {maxFailures: 1, windowSec: 300, suppressSec: 12, maxSuppressSec: 12}}
      endpoints: [{id: vm-1, ipAddress: 10.3.0.10}]
      ---
      kind: ForwardingRule
      name: fr-flappy
      region: us-east1
      ipAddress: 10.3.0.100
      loadBalancerType: regionalL7ilb
      backendService: flappy
      ---
      kind: ResourceRecordSet
      zone: internal
      name: flappy.example.internal.
      type: A
      ttl: 5
      routingPolicy:
        primaryBackup:
          primaryTargets:
            internalLoadBalancers: [{forwardingRule: fr-flappy}]
          backupGeoTargets:
            items: [{location: us-east1, rrdatas: [127.0.2.100]}]
      ---
      kind: ResourceRecordSet
      zone: internal
      name: tried.example.internal.
      type: A
      ttl: 5
      rrdatas: [10.9.9.1]
      ---
      kind: ResourceRecordSet
      zone: internal
      name: quorum.example.internal.
      type: A
      ttl: 5
      routingPolicy:
        healthCheck: {checkIntervalSec: 30, healthyThreshold: 1, unhealthyThreshold: 1,
                      proberQuorum: {healthyPercent: 60, minProbers: 2}}
        wrr:
          items:
            - {weight: 100, rrdatas: [10.8.1.1], healthCheckedTargets: {externalEndpoints: [10.8.1.1]}}
            - {weight: 0, rrdatas: [10.8.1.2]}
      ---
      kind: ResourceRecordSet
      zone: internal
      name: remembered.example.internal.
      type: A
      ttl: 5
      routingPolicy:
        healthCheck: {checkIntervalSec: 1, healthyThreshold: 1, unhealthyThreshold: 1, staleAfterIntervals: 2}
        unknownTargets: LAST_KNOWN
        lastKnownMaxAgeSeconds: 10
        wrr:
          items:
            - {weight: 100, rrdatas: [10.8.0.1], healthCheckedTargets: {externalEndpoints: [10.8.0.1]}}
            - {weight: 0, rrdatas: [10.8.0.2]}
      """;
  /** The same record set as the seed has it: UNKNOWN counts as healthy. */
  private static final String SEED = "---\n" + CONFIG.substring(CONFIG.lastIndexOf("kind: ResourceRecordSet"))
      .replace("remembered.", "seed.").replace("  unknownTargets: LAST_KNOWN\n  lastKnownMaxAgeSeconds: 10\n", "");
  private static Demo demo;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("operator-controls-it");
    demo = Demo.start(dir, true, Demo.Ports.free());
    Path config = dir.resolve("controls.yaml");
    assertThat(SEED).contains("seed.example.internal.").doesNotContain("LAST_KNOWN");
    Files.writeString(config, CONFIG + SEED);
    Cli.Run apply = Cli.execute(demo.bootstrap(), demo.registryUrl(), "apply", "-f", config.toString());
    assertThat(apply.exit()).as(apply.err()).isZero();
  }

  @AfterAll
  static void stop() {
    demo.close();
  }

  /** The prober of the applied service (the demo's simulator probes only its own): a result every 500 ms. */
  private static final class Prober implements AutoCloseable {
    private final KafkaProducer<String, ProbeResult> producer;
    private final Thread thread;
    private volatile boolean success = true;
    private volatile boolean running = true;

    Prober() {
      SchemaRegistryClient registry = new RestSchemaRegistryClient(demo.registryUrl());
      producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, demo.bootstrap()),
          Topics.PROBE_RESULTS.keySerde(registry).serializer(), Topics.PROBE_RESULTS.valueSerde(registry).serializer());
      thread = new Thread(() -> {
        while (running) {
          producer.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), "flappy", ProbeResult.newBuilder()
              .setBackendService("flappy").setEndpointId("vm-1").setSuccess(success).setEventTime(Instant.now())
              .setProber("it").build()));
          producer.flush();
          try {
            Thread.sleep(500); // the probe interval
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "it-prober");
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      thread.join();
      producer.close();
    }
  }

  @Test
  void aFlappingBackendIsHeldOnItsBackup_untilItsSuppressionEnds_R_OP_3() throws Exception {
    try (Prober prober = new Prober()) {
      flapsAndIsHeld(prober);
    }
    JsonNode timeline = json("audit", "timeline", "endpoint/flappy/vm-1", "-o", "json");
    List<String> reasons = new ArrayList<>();
    timeline.forEach(t -> reasons.add(t.get("cause").get("reason").asText()));
    assertThat(reasons).containsSubsequence("PROBE", "PROBE", "FLAP_DAMPING", "FLAP_DAMPING");
    Cli.Run status = Cli.execute(demo.bootstrap(), demo.registryUrl(), "status", "--kind", "endpoint", "--name", "flappy/*");
    assertThat(status.out()).contains("flappy/vm-1").contains("damp >1/300s");
  }

  private static void flapsAndIsHeld(Prober prober) throws Exception {
    await("flappy/vm-1 HEALTHY").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
        json("status", "--kind", "endpoint", "--name", "flappy/vm-1", "-o", "json").findValuesAsText("state"),
        List.of("HEALTHY")::equals);
    awaitAnswer("flappy", "10.3.0.100", Duration.ofSeconds(20));
    prober.success = false;
    awaitAnswer("flappy", "127.0.2.100", Duration.ofSeconds(20)); // one failure is allowed: plain failover
    prober.success = true;
    awaitAnswer("flappy", "10.3.0.100", Duration.ofSeconds(20));
    prober.success = false; // the second within the window: held down for 12 s
    awaitAnswer("flappy", "127.0.2.100", Duration.ofSeconds(20));
    prober.success = true;
    Instant healed = Instant.now();
    // Healthy results every second, and still on the backup while held.
    for (int i = 0; i < 10; i++) {
      assertThat(answers("flappy")).as("held %s after healing", Duration.between(healed, Instant.now()))
          .containsOnly("127.0.2.100");
      if (Duration.between(healed, Instant.now()).toSeconds() >= 6) {
        break;
      }
      Thread.sleep(500); // an observation window: it must hold, not become true
    }
    awaitAnswer("flappy", "10.3.0.100", Duration.ofSeconds(30));
    assertThat(Duration.between(healed, Instant.now())).as("released by its suppression, not by the results")
        .isGreaterThan(Duration.ofSeconds(6));
  }

  @Test
  void aStaleTargetCountsAsLastKnown_forItsMaximumAge_whereTheDefaultAnswersIt_R_OP_2() throws Exception {
    publish(true);
    awaitAnswer("remembered", "10.8.0.1", Duration.ofSeconds(30));
    publish(false);
    awaitAnswer("remembered", "10.8.0.2", Duration.ofSeconds(20));
    awaitAnswer("seed", "10.8.0.2", Duration.ofSeconds(20));
    // No more results: after 2 s the endpoint is UNKNOWN (R-EP-4). The seed's record set answers
    // it again at once; the other keeps it out for 10 s as last known DOWN.
    awaitAnswer("seed", "10.8.0.1", Duration.ofSeconds(20));
    Instant stale = Instant.now();
    assertThat(answers("remembered")).as("still down as last known").containsOnly("10.8.0.2");
    awaitAnswer("remembered", "10.8.0.1", Duration.ofSeconds(30));
    assertThat(Duration.between(stale, Instant.now())).isGreaterThan(Duration.ofSeconds(5));

    JsonNode state = json("status", "--kind", "external_endpoint", "--name", "10.8.0.1", "-o", "json");
    assertThat(state.get(0).get("state").asText()).isEqualTo("UNKNOWN");
    assertThat(state.get(0).get("lastKnown").asText()).isEqualTo("UNHEALTHY");
    // its thresholds come from the record sets whose bytes hold the address, the only ones decoded
    assertThat(state.get(0).get("thresholds").asText()).isEqualTo("1 up/1 down");
  }

  @Test
  void aDryRunRecordSetIsDecidedBesideTheLiveOne_butNeverAnswered_R_OP_5(@org.junit.jupiter.api.io.TempDir Path tmp)
      throws Exception {
    awaitAnswer("tried", "10.9.9.1", Duration.ofSeconds(30));
    Path dryRun = tmp.resolve("dry-run.yaml");
    Files.writeString(dryRun, "kind: ResourceRecordSet\nzone: internal\nname: tried.example.internal.\ntype: A\n"
        + "ttl: 5\ndryRun: true\nrrdatas: [10.9.9.2]\n");
    Cli.Run apply = Cli.execute(demo.bootstrap(), demo.registryUrl(), "apply", "-f", dryRun.toString());
    assertThat(apply.exit()).as(apply.err()).isZero();
    assertThat(apply.out()).contains("internal/tried.example.internal./A/dry-run");
    String metrics = "http://127.0.0.1:" + demo.metrics().get("edge us-east1").port() + "/metrics";
    await("the edge decides the dry run").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
      assertThat(answers("tried")).as("never the dry run's answer").containsExactly("10.9.9.1");
      return scrape(metrics).lines().anyMatch(l -> l.startsWith("healthmesh_dns_dry_run_answers_total{")
          && l.contains("differs=\"true\"") && l.contains("reason=\"STATIC\"") && !l.endsWith(" 0.0"));
    });
    String explained = Cli.execute(demo.bootstrap(), demo.registryUrl(), "audit", "explain", "tried.example.internal", "A",
        "--at", Instant.now().toString(), "--region", "us-east1").out();
    assertThat(explained).contains("beside it, a dry run (not answered, R-OP-5): internal/tried.example.internal./A/dry-run")
        .contains("10.9.9.2");
  }

  private static String scrape(String url) throws Exception {
    return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
        .build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void threeProbersDecideByQuorum_andOneCutOffChangesNothing_R_PQ_2_R_PQ_4() throws Exception {
    publish("10.8.1.1", "us-east/p1", true);
    awaitState("10.8.1.1", "UNKNOWN"); // one fresh prober of the two needed
    publish("10.8.1.1", "eu-west/p1", true);
    awaitState("10.8.1.1", "HEALTHY");
    publish("10.8.1.1", "asia/p1", false); // cut off: 2 of 3 still see it
    publish("10.8.1.1", "asia/p1", false);
    publish("10.8.1.1", "eu-west/p1", true); // a result after asia's, so they have been applied
    awaitAnswer("quorum", "10.8.1.1", Duration.ofSeconds(30));
    JsonNode up = json("status", "--kind", "external_endpoint", "--name", "10.8.1.1", "-o", "json").get(0);
    assertThat(up.get("state").asText()).isEqualTo("HEALTHY");
    assertThat(up.get("version").asLong()).as("no transition for the cut-off prober").isEqualTo(1);
    assertThat(up.get("thresholds").asText()).isEqualTo("1 up/1 down, quorum 60% of >=2");

    publish("10.8.1.1", "eu-west/p1", false); // 1 of 3 HEALTHY
    awaitAnswer("quorum", "10.8.1.2", Duration.ofSeconds(30));
    JsonNode down = json("status", "--kind", "external_endpoint", "--name", "10.8.1.1", "-o", "json").get(0);
    assertThat(down.get("probers")).extracting(v -> v.get("prober").asText() + " " + v.get("state").asText())
        .containsExactly("asia/p1 UNHEALTHY", "eu-west/p1 UNHEALTHY", "us-east/p1 HEALTHY");
    String explained = Cli.execute(demo.bootstrap(), demo.registryUrl(), "audit", "explain", "quorum.example.internal",
        "A", "--at", Instant.now().toString(), "--region", "us-east1").out();
    assertThat(explained).contains("10.8.1.1  UNHEALTHY").contains("1 of 3 probers see it HEALTHY")
        .contains("asia/p1 UNHEALTHY, eu-west/p1 UNHEALTHY, us-east/p1 HEALTHY");
  }

  private static void awaitState(String address, String state) {
    await(address + " " + state).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).until(() -> {
      JsonNode rows = json("status", "--kind", "external_endpoint", "--name", address, "-o", "json");
      return rows.size() == 1 && rows.get(0).get("state").asText().equals(state);
    });
  }

  private static void publish(boolean success) {
    publish("10.8.0.1", "it", success);
  }

  private static void publish(String endpoint, String prober, boolean success) {
    List<String> args = new ArrayList<>(List.of("probe", "publish", "--endpoint", endpoint, "--prober", prober));
    if (!success) {
      args.add("--failure");
    }
    Cli.Run run = Cli.execute(demo.bootstrap(), demo.registryUrl(), args.toArray(String[]::new));
    assertThat(run.exit()).as(run.err()).isZero();
  }

  private static void awaitAnswer(String name, String address, Duration timeout) {
    await(name + " answers " + address).atMost(timeout).pollInterval(Duration.ofMillis(200))
        .until(() -> answers(name), a -> a.equals(List.of(address)));
  }

  private static List<String> answers(String name) throws Exception {
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", demo.edges().get(0).port()));
    resolver.setTimeout(Duration.ofSeconds(2));
    Message m = resolver.send(Message.newQuery(Record.newRecord(Name.fromConstantString(name + ".example.internal."),
        Type.A, DClass.IN)));
    return m.getSection(Section.ANSWER).stream().map(Record::rdataToString).toList();
  }

  private static JsonNode json(String... args) throws Exception {
    return Cli.json(demo, args);
  }
}
