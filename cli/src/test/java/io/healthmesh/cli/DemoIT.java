package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** The README's first command, in-process: a failover shows in DNS within seconds, and heals. */
class DemoIT {

  @Test
  void failsOverInDnsWithinSeconds_whenABackendFails_andComesBackOnRestart(@TempDir Path dir) throws Exception {
    try (Demo demo = Demo.start(dir, true, Demo.Ports.free())) {
      assertThat(demo.banner()).contains("dig @127.0.0.1 -p " + demo.edges.get(0).port() + " api.example.internal");
      assertThat(awaitMajority(demo, "db", "10.1.0.100", Duration.ofSeconds(30))).isTrue();

      // From another terminal: no --data-dir, the demo is reached through its Kafka.
      Cli.Run fail = Cli.execute(demo.bootstrap, demo.registryUrl, "demo", "fail", "orders-use1");
      assertThat(fail.exit()).as(fail.err()).isZero();
      assertThat(fail.out()).contains("orders-use1 now fails").contains("failing now: orders-use1");
      assertThat(awaitMajority(demo, "db", "10.2.0.100", Duration.ofSeconds(20))).as("failover to the backup").isTrue();
      assertThat(awaitMajority(demo, "api", "10.2.0.100", Duration.ofSeconds(5))).as("WRR shifts its share").isTrue();
      Cli.Run down = Cli.execute(demo.bootstrap, demo.registryUrl, "status", "--kind", "endpoint", "--state", "UNHEALTHY");
      assertThat(down.exit()).as(down.err()).isZero();
      assertThat(down.out()).contains("orders-use1/vm-1").contains("UNHEALTHY").contains("2 up/2 down")
          .doesNotContain("orders-euw1/");
      assertThat(awaitEdgesAgree(demo, Duration.ofSeconds(30))).as("both edges report the same state").isTrue();

      Cli.Run heal = Cli.execute(demo.bootstrap, demo.registryUrl, "demo", "heal", "all");
      assertThat(heal.out()).contains("nothing fails now");
      assertThat(awaitMajority(demo, "db", "10.1.0.100", Duration.ofSeconds(20))).as("back on the primary").isTrue();
    }
    Cli.Run none = Cli.execute("127.0.0.1:" + freePort(), "http://127.0.0.1:" + freePort(), "demo", "fail", "orders-use1");
    assertThat(none.exit()).as("no demo runs: a failure, not a silent success").isEqualTo(1);
    assertThat(none.err()).contains("no Kafka answers at");
    try (Demo again = Demo.start(dir, false, Demo.Ports.free())) {
      assertThat(awaitMajority(again, "www", "10.1.0.100", Duration.ofSeconds(30))).as("restarted on its data").isTrue();
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

  /** Whether, within {@code timeout}, {@code status --edges} lists both edges serving the same state. */
  private static boolean awaitEdgesAgree(Demo demo, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Cli.Run run = null;
    while (System.nanoTime() < deadline) {
      run = Cli.execute(demo.bootstrap, demo.registryUrl, "status", "--edges");
      if (run.exit() == 0 && run.out().contains("all 2 reporting edge(s) serve the same state")
          && run.out().contains("edge-us-east1") && run.out().contains("edge-europe-west1")) {
        return true;
      }
      Thread.sleep(500);
    }
    System.err.println(run == null ? "" : run.out() + run.err());
    return false;
  }

  private static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Whether, within {@code timeout}, 15 of 20 answers for {@code name} are {@code address}. */
  private static boolean awaitMajority(Demo demo, String name, String address, Duration timeout) throws Exception {
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", demo.edges.get(0).port()));
    resolver.setTimeout(Duration.ofSeconds(2));
    Message query = Message.newQuery(Record.newRecord(Name.fromConstantString(name + ".example.internal."), Type.A, DClass.IN));
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Map<String, Integer> counts = new HashMap<>();
      for (int i = 0; i < 20; i++) {
        List<Record> answer = resolver.send(query).getSection(Section.ANSWER);
        answer.forEach(r -> counts.merge(r.rdataToString(), 1, Integer::sum));
      }
      if (counts.getOrDefault(address, 0) >= 15) {
        return true;
      }
      Thread.sleep(200);
    }
    return false;
  }
}
