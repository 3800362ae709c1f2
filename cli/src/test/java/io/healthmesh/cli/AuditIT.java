package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.healthmesh.cli.launch.Demo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A scripted incident on the real broker (one endpoint degrades, then a whole backend: the
 * composite flips and the failover record set switches to its backup, then everything recovers),
 * and what the audit commands say about it afterwards, just before and just after each transition.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class AuditIT {
  private static Path dir;
  private static Demo demo;

  @BeforeAll
  static void recordTheIncident() throws Exception {
    dir = Files.createTempDirectory("audit-it");
    demo = Demo.start(dir, true, Demo.Ports.free());
    awaitComposite("HEALTHY", Duration.ofSeconds(60));
    // The incident's timeline: the sleeps are how long each phase lasts, not waits for a condition.
    demo.faults().fail("orders-use1/vm-1"); // 2 of 3 left: the 60%/2 policy keeps the source HEALTHY
    Thread.sleep(5_000);
    demo.faults().heal("all");
    Thread.sleep(4_000);
    demo.faults().fail("orders-use1");
    DemoAnswers.awaitMajority(demo, "failover", "db", "127.0.2.100", Duration.ofSeconds(30));
    demo.faults().heal("all");
    DemoAnswers.awaitMajority(demo, "recovery", "db", "127.0.1.100", Duration.ofSeconds(30));
    Thread.sleep(2_000);
  }

  @AfterAll
  static void stop() {
    demo.close();
  }

  @Test
  void timelineAndStateAt_tellTheCompositeFlippedAndRecovered() throws Exception {
    JsonNode timeline = json("audit", "timeline", "COMPOSITE_HEALTH_CHECK/orders-use1-chc", "-o", "json");
    assertThat(statuses(timeline)).containsExactly("UNKNOWN->HEALTHY", "HEALTHY->UNHEALTHY", "UNHEALTHY->HEALTHY");
    JsonNode flip = timeline.get(1);
    assertThat(flip.get("cause").get("reason").asText()).isNotEmpty();
    assertThat(flip.get("cause").get("detail").asText()).isNotEmpty();
    Instant down = Instant.parse(flip.get("eventTime").asText());
    Instant up = Instant.parse(timeline.get(2).get("eventTime").asText());

    assertThat(compositeAt(down.minusMillis(1))).isEqualTo("HEALTHY");
    assertThat(compositeAt(down)).isEqualTo("UNHEALTHY");
    assertThat(compositeAt(up.minusMillis(1))).isEqualTo("UNHEALTHY");
    assertThat(compositeAt(up)).isEqualTo("HEALTHY");

    JsonNode source = json("audit", "timeline", "health_source/orders-use1-src", "-o", "json");
    assertThat(source.get(1).get("cause").get("policyName").asText()).isEqualTo("majority-us-east1");
    assertThat(source.get(1).get("cause").get("healthyPercentThreshold").asInt()).isEqualTo(60);

    String table = run("audit", "timeline", "composite-health-check/orders-use1-chc").out();
    assertThat(table).contains("HEALTHY -> UNHEALTHY", "UNHEALTHY -> HEALTHY", "EVENT TIME");
  }

  @Test
  void explain_givesTheAnswersAndTheirOdds_justBeforeAndAfterTheFailover() throws Exception {
    JsonNode fr = json("audit", "timeline", "forwarding_rule/fr-orders-use1", "-o", "json");
    assertThat(statuses(fr)).containsSubsequence("HEALTHY->UNHEALTHY", "UNHEALTHY->HEALTHY");
    Instant down = at(fr, "HEALTHY->UNHEALTHY");
    Instant up = at(fr, "UNHEALTHY->HEALTHY");

    Map<String, Double> healthy = outcomes("db.example.internal", down.minusMillis(1));
    assertThat(healthy.keySet()).containsExactlyInAnyOrder("PRIMARY 127.0.1.100", "TRICKLE 127.0.2.100");
    assertThat(healthy.get("PRIMARY 127.0.1.100")).isCloseTo(0.9, org.assertj.core.data.Offset.offset(0.01)); // R-FO-1
    assertThat(healthy.get("TRICKLE 127.0.2.100")).isCloseTo(0.1, org.assertj.core.data.Offset.offset(0.01)); // R-FO-3
    assertThat(outcomes("db.example.internal", down)).containsOnlyKeys("FAILOVER 127.0.2.100"); // R-FO-2
    assertThat(outcomes("db.example.internal", up.minusMillis(1))).containsOnlyKeys("FAILOVER 127.0.2.100");
    assertThat(outcomes("db.example.internal", up).keySet()).contains("PRIMARY 127.0.1.100");

    Map<String, Double> wrrDown = outcomes("api.example.internal", down);
    assertThat(wrrDown).containsOnlyKeys("WEIGHT_DRAW 127.0.2.100"); // R-WRR-5: its 25% moved to the healthy item
    Map<String, Double> wrrUp = outcomes("api.example.internal", up);
    assertThat(wrrUp.get("WEIGHT_DRAW 127.0.1.100")).isCloseTo(0.25, org.assertj.core.data.Offset.offset(0.01)); // R-WRR-2

    String text = run("audit", "explain", "db.example.internal", "A", "--at", down.toString(), "--region", "us-east1").out();
    assertThat(text).contains("internal/db.example.internal./A", "policy: FAILOVER", "127.0.1.100  UNHEALTHY since " + down,
        "100.00%", "R-FO-2");
    assertThat(run("audit", "explain", "www.example.internal", "A", "--at", up.toString(), "--client-subnet",
        "10.200.1.0/24", "--subnet-regions", "10.200.0.0/16=europe-west1").out()).contains("GEO_MATCH", "127.0.2.100");
    // R-GEO-1 as the edge judges it: a /8 source prefix does not say the client is inside the /16.
    assertThat(run("audit", "explain", "www.example.internal", "A", "--at", up.toString(), "--client-subnet",
        "10.200.1.0/8", "--subnet-regions", "10.200.0.0/16=europe-west1", "--region", "us-east1").out())
        .contains("query entering in us-east1");
  }

  @Test
  void replay_findsNoDifference_andAStricterPolicyFindsTheDegradation(@org.junit.jupiter.api.io.TempDir Path tmp)
      throws Exception {
    JsonNode same = json("audit", "replay", "-o", "json");
    assertThat(same.get("onlyReplayed")).as("R-AUD-2").isEmpty();
    assertThat(same.get("onlyPublished")).as("R-AUD-2").isEmpty();
    assertThat(same.get("published").asInt()).isGreaterThan(10);

    Path strict = tmp.resolve("strict.yaml");
    Files.writeString(strict, "kind: HealthAggregationPolicy\nname: majority-us-east1\nregion: us-east1\n"
        + "healthyPercentThreshold: 100\nminHealthyThreshold: 3\n");
    JsonNode backTest = json("audit", "replay", "--policy", strict.toString(), "-o", "json");
    List<String> extra = new ArrayList<>();
    backTest.get("onlyReplayed").forEach(n -> extra.add(n.asText()));
    // vm-1 alone failing now fails the source and its composite, which 60%/2 tolerated
    assertThat(extra).anyMatch(s -> s.startsWith("HEALTH_SOURCE/orders-use1-src HEALTHY->UNHEALTHY"));
    assertThat(extra).anyMatch(s -> s.startsWith("COMPOSITE_HEALTH_CHECK/orders-use1-chc HEALTHY->UNHEALTHY"));
    JsonNode source = backTest.get("entities").get("HEALTH_SOURCE/orders-use1-src");
    assertThat(source.get("replayedTransitions").asInt()).isGreaterThan(source.get("publishedTransitions").asInt());
    assertThat(source.get("replayedUnhealthySeconds").asDouble()).isGreaterThan(source.get("publishedUnhealthySeconds").asDouble());
    assertThat(backTest.get("entities").get("ENDPOINT/orders-use1/vm-1").get("replayedTransitions").asInt())
        .isEqualTo(backTest.get("entities").get("ENDPOINT/orders-use1/vm-1").get("publishedTransitions").asInt());
  }

  @Test
  void replay_backTestsADwellTime_whichHidesTheShortFailure(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
    // R-OP-3: the incident's 5 s failure of vm-1 is shorter than an 8 s dwell time
    String demoService = Files.readString(Path.of("../examples/demo.yaml")).split("\n---\n")[0];
    assertThat(demoService).contains("name: orders-use1");
    Path dwell = tmp.resolve("dwell.yaml");
    Files.writeString(dwell, demoService.replace("staleAfterIntervals: 5}", "staleAfterIntervals: 5, minDwellSec: 8}"));
    JsonNode backTest = json("audit", "replay", "--policy", dwell.toString(), "-o", "json");
    JsonNode vm1 = backTest.get("entities").get("ENDPOINT/orders-use1/vm-1");
    assertThat(vm1.get("replayedTransitions").asInt()).isLessThan(vm1.get("publishedTransitions").asInt());
    assertThat(vm1.get("replayedUnhealthySeconds").asDouble()).isLessThan(vm1.get("publishedUnhealthySeconds").asDouble());
    JsonNode vm1Euw = backTest.get("entities").get("ENDPOINT/orders-euw1/vm-1");
    assertThat(vm1Euw.get("replayedTransitions").asInt()).as("the other region's check is as recorded")
        .isEqualTo(vm1Euw.get("publishedTransitions").asInt());
  }

  @Test
  void replay_backTestsACompositeStyle_andRefusesOtherKinds(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
    // R-OP-4: ANY over its one source decides as ALL did, so the replaced composite (serialized,
    // validated and evaluated by the topology's own code) must publish every transition it did.
    Path any = tmp.resolve("any.yaml");
    Files.writeString(any, "kind: CompositeHealthCheck\nname: orders-use1-chc\nregion: us-east1\n"
        + "healthSources: [orders-use1-src]\nhealthDestination: fr-orders-use1\nstyle: ANY\n"
        + "criticalSources: [orders-use1-src]\n");
    JsonNode backTest = json("audit", "replay", "--policy", any.toString(), "-o", "json");
    assertThat(backTest.get("onlyReplayed")).isEmpty();
    assertThat(backTest.get("onlyPublished")).isEmpty();
    assertThat(backTest.get("entities").get("COMPOSITE_HEALTH_CHECK/orders-use1-chc").get("replayedTransitions").asInt())
        .isEqualTo(3);

    Path source = tmp.resolve("source.yaml");
    Files.writeString(source, "kind: HealthSource\nname: s\nregion: us-east1\nbackendService: b\n"
        + "healthAggregationPolicy: p\n");
    Cli.Run refused = run("audit", "replay", "--policy", source.toString());
    assertThat(refused.exit()).isNotZero();
    assertThat(refused.err())
        .contains("only HealthAggregationPolicy, CompositeHealthCheck and BackendService documents can be back-tested");
  }

  private static void awaitComposite(String state, Duration timeout) {
    await("both composites " + state).atMost(timeout).pollInterval(Duration.ofMillis(500)).until(() -> {
      JsonNode states = json("audit", "state-at", Instant.now().plusSeconds(60).toString(), "--kind",
          "COMPOSITE_HEALTH_CHECK", "-o", "json");
      return states.size() == 2 && states.findValuesAsText("state").stream().allMatch(state::equals);
    });
  }

  private static String compositeAt(Instant at) throws Exception {
    JsonNode states = json("audit", "state-at", at.toString(), "--kind", "COMPOSITE_HEALTH_CHECK", "--name",
        "orders-use1-chc", "-o", "json");
    assertThat(states).hasSize(1);
    return states.get(0).get("state").asText();
  }

  /** "REASON answer" to probability, from explain's JSON. */
  private static Map<String, Double> outcomes(String name, Instant at) throws Exception {
    JsonNode x = json("audit", "explain", name, "A", "--at", at.toString(), "--region", "us-east1", "-o", "json");
    Map<String, Double> found = new HashMap<>();
    for (JsonNode o : x.get("outcomes")) {
      List<String> answer = new ArrayList<>();
      o.get("answer").forEach(a -> answer.add(a.asText()));
      found.merge(o.get("reason").asText() + " " + String.join(",", answer), o.get("probability").asDouble(), Double::sum);
    }
    return found;
  }

  private static List<String> statuses(JsonNode timeline) {
    List<String> s = new ArrayList<>();
    timeline.forEach(t -> s.add(t.get("oldStatus").asText() + "->" + t.get("newStatus").asText()));
    return s;
  }

  private static Instant at(JsonNode timeline, String transition) {
    for (JsonNode t : timeline) {
      if ((t.get("oldStatus").asText() + "->" + t.get("newStatus").asText()).equals(transition)) {
        return Instant.parse(t.get("eventTime").asText());
      }
    }
    throw new AssertionError("no " + transition);
  }

  private static JsonNode json(String... args) throws Exception {
    return Cli.json(demo, args);
  }

  private static Cli.Run run(String... args) {
    return Cli.run(demo, args);
  }
}
