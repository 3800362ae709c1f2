package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.healthmesh.cli.launch.Demo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The README's first command, in-process: a failover shows in DNS within seconds, and heals. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DemoIT {

  @Test
  void failsOverInDnsWithinSeconds_whenABackendFails_andComesBackOnRestart(@TempDir Path dir) throws Exception {
    try (Demo demo = Demo.start(dir, true, Demo.Ports.free())) {
      assertThat(demo.banner()).contains("dig @127.0.0.1 -p " + demo.edges().get(0).port() + " api.example.internal");
      DemoAnswers.awaitMajority(demo, "up", "db", "127.0.1.100", Duration.ofSeconds(30));
      assertDelvValidates(demo, dir); // R-DNSSEC-1
      String xds = "127.0.0.1:" + demo.xds().port();
      assertThat(demo.banner()).contains("./healthctl xds watch orders-global --server " + xds);
      awaitCalls(demo, "us-east1"); // R-XDS-1: gRPC's own xDS client reaches the preferred region
      await("the xDS server reports").atMost(Duration.ofSeconds(20)).until(() ->
          Cli.execute(demo.bootstrap(), demo.registryUrl(), "status", "--xds").out()
              .contains("xDS server xds-demo: ready, 1 consumer backend service(s)"));

      // From another terminal: no --data-dir, the demo is reached through its Kafka. First one
      // region's prober is cut off from orders-use1: the other outvotes it (R-PQ-2).
      Cli.Run cut = Cli.execute(demo.bootstrap(), demo.registryUrl(), "demo", "fail", "orders-use1", "--from",
          "europe-west1");
      assertThat(cut.exit()).as(cut.err()).isZero();
      assertThat(cut.out()).contains("that prober alone sees it fail");
      Thread.sleep(4_000); // two failing results of that prober, and more
      assertThat(Cli.json(demo, "status", "--kind", "endpoint", "--state", "UNHEALTHY", "-o", "json"))
          .as("a partition flips nothing").isEmpty();
      DemoAnswers.awaitMajority(demo, "still on the primary", "db", "127.0.1.100", Duration.ofSeconds(5));
      Cli.Run fail = Cli.execute(demo.bootstrap(), demo.registryUrl(), "demo", "fail", "orders-use1");
      assertThat(fail.exit()).as(fail.err()).isZero();
      assertThat(fail.out()).contains("orders-use1 now fails")
          .contains("failing now: orders-use1, orders-use1 from europe-west1");
      DemoAnswers.awaitMajority(demo, "failover to the backup", "db", "127.0.2.100", Duration.ofSeconds(20));
      DemoAnswers.awaitMajority(demo, "WRR shifts its share", "api", "127.0.2.100", Duration.ofSeconds(5));
      awaitCalls(demo, "europe-west1"); // R-XDS-4: the consumer's calls fail over as R-CH-8 decides
      Cli.Run down = Cli.execute(demo.bootstrap(), demo.registryUrl(), "status", "--kind", "endpoint", "--state", "UNHEALTHY");
      assertThat(down.exit()).as(down.err()).isZero();
      assertThat(down.out()).contains("orders-use1/vm-1").contains("UNHEALTHY").contains("2 up/2 down")
          .contains("europe-west1/demo-prober UNHEALTHY, us-east1/demo-prober UNHEALTHY").doesNotContain("orders-euw1/");
      // The same question asked of the topology's stores, and of a topology that is not there.
      String topology = demo.metrics().get("topology").url().replace("/metrics", "");
      Cli.Run live = Cli.execute(demo.bootstrap(), demo.registryUrl(), "status", "--kind", "endpoint", "--state",
          "UNHEALTHY", "--topology-url", topology, "--timings");
      assertThat(live.err()).as("answered by the topology").contains("topology's stores (3 entities, 1 instance(s))")
          .doesNotContain("health-state");
      assertThat(live.out()).contains("orders-use1/vm-3").contains("2 up/2 down").contains("us-east1 ")
          .contains("europe-west1/demo-prober UNHEALTHY, us-east1/demo-prober UNHEALTHY").doesNotContain("orders-euw1/")
          .contains("3 entities: 0 HEALTHY, 3 UNHEALTHY, 0 UNKNOWN");
      Cli.Run away = Cli.execute(demo.bootstrap(), demo.registryUrl(), "status", "--kind", "endpoint", "--state",
          "UNHEALTHY", "--topology-url", "http://127.0.0.1:" + freePort());
      assertThat(away.err()).contains("note: no topology answered").contains("reading health-state instead");
      assertThat(away.out()).contains("3 entities: 0 HEALTHY, 3 UNHEALTHY, 0 UNKNOWN");
      Cli.Run composites = Cli.execute(demo.bootstrap(), demo.registryUrl(), "status", "--kind", "composite-health-check");
      assertThat(composites.out()).as("the seed's style, R-OP-4").contains("orders-use1-chc").contains(" ALL ");
      awaitEdgesAgree(demo, Duration.ofSeconds(30));

      Cli.Run heal = Cli.execute(demo.bootstrap(), demo.registryUrl(), "demo", "heal", "all");
      assertThat(heal.out()).contains("nothing fails now");
      DemoAnswers.awaitMajority(demo, "back on the primary", "db", "127.0.1.100", Duration.ofSeconds(20));
      awaitCalls(demo, "us-east1");
    }
    Cli.Run none = Cli.execute("127.0.0.1:" + freePort(), "http://127.0.0.1:" + freePort(), "demo", "fail", "orders-use1");
    assertThat(none.exit()).as("no demo runs: a failure, not a silent success").isEqualTo(1);
    assertThat(none.err()).contains("no Kafka answers at");
    try (Demo again = Demo.start(dir, false, Demo.Ports.free())) {
      DemoAnswers.awaitMajority(again, "restarted on its data", "www", "127.0.1.100", Duration.ofSeconds(30));
    }
  }

  /**
   * The demo zone is signed by both edges with the keys the demo made, and delv, given the trust
   * anchor that {@code healthctl dnssec ds} prints, fully validates what each edge answers.
   */
  private static void assertDelvValidates(Demo demo, Path dir) throws Exception {
    Cli.Run ds = Cli.execute(null, null, "dnssec", "ds", Demo.DEMO_ZONE, "--keys-dir",
        dir.resolve("dnssec-keys").toString());
    assertThat(ds.exit()).as(ds.err()).isZero();
    String[] f = ds.out().strip().split("\\s+"); // NAME TTL IN DS TAG ALG DIGEST-TYPE DIGEST
    Path anchors = dir.resolve("anchors.conf");
    java.nio.file.Files.writeString(anchors, "trust-anchors { \"" + f[0] + "\" static-ds " + f[4] + " " + f[5] + " "
        + f[6] + " \"" + f[7] + "\"; };\n");
    assertThat(demo.banner()).contains("+dnssec");
    for (var edge : demo.edges()) {
      for (String name : java.util.List.of("api", "db", "www")) { // WRR, failover with trickle, geo
        Process delv = new ProcessBuilder("delv", "@127.0.0.1", "-p", String.valueOf(edge.port()), "-a",
            anchors.toString(), "+root=" + Demo.DEMO_ZONE, name + ".example.internal", "A").redirectErrorStream(true)
            .start();
        assertThat(delv.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(new String(delv.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8))
            .contains("; fully validated").contains(name + ".example.internal.");
      }
    }
  }

  @Test
  void printsUsageAndExits2_whenTheCommandIsWrong() {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured));
    try {
      assertThat(Healthctl.commandLine().execute("demo", "--dns-ports", "x")).isEqualTo(2);
      assertThat(Healthctl.commandLine().execute("nonsense")).isEqualTo(2);
    } finally {
      System.setErr(err);
    }
    assertThat(captured.toString()).contains("Usage:");
  }

  /** Until {@code healthctl xds watch} sees every call of a second answered by {@code region} alone. */
  private static void awaitCalls(Demo demo, String region) {
    AtomicReference<String> last = new AtomicReference<>("");
    try {
      await("calls through xds:///orders-global reach " + region).atMost(Duration.ofSeconds(30)).until(() -> {
        Cli.Run run = Cli.execute(null, null, "xds", "watch", "orders-global", "--server",
            "127.0.0.1:" + demo.xds().port(), "--count", "1");
        last.set(run.out() + run.err());
        return run.exit() == 0 && run.out().matches("(?s).*orders-global -> \\{" + region + "=\\d+}\\s*");
      });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "; xds watch said:\n" + last.get(), e);
    }
  }

  /** Until {@code status --edges} lists both edges serving the same state; the last output is in the failure. */
  private static void awaitEdgesAgree(Demo demo, Duration timeout) {
    AtomicReference<String> last = new AtomicReference<>("");
    try {
      await("both edges report the same state").atMost(timeout).pollInterval(Duration.ofMillis(500)).until(() -> {
        Cli.Run run = Cli.execute(demo.bootstrap(), demo.registryUrl(), "status", "--edges");
        last.set(run.out() + run.err());
        return run.exit() == 0 && run.out().contains("all 2 reporting edge(s) serve the same state")
            && run.out().contains("edge-us-east1") && run.out().contains("edge-europe-west1")
            && run.out().matches("(?s).*dnssec example.internal.: DNSKEY set \\[\\d+, \\d+\\] at all 2 edge\\(s\\).*"); // R-DNSSEC-3
      });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "; status --edges said:\n" + last.get(), e);
    }
  }

  private static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
