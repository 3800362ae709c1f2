package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HealthctlTest {

  @Test
  void printsHelpAndExits0_forEveryCommand() {
    List<String> paths = new ArrayList<>();
    collect(Healthctl.commandLine(), "", paths);
    assertThat(paths).contains("apply", "validate", "get", "delete", "probe publish", "probe run", "topology", "edge",
        "registry", "demo", "demo fail", "demo heal", "topics create", "audit timeline", "audit state-at",
        "audit explain", "audit replay", "acls");
    for (String path : paths) {
      List<String> args = new ArrayList<>(List.of(path.split(" ")));
      args.add("--help");
      String[] line = args.toArray(String[]::new);
      StringWriter out = new StringWriter();
      int exit = Healthctl.commandLine(line).setOut(new PrintWriter(out)).execute(line);
      assertThat(exit).as(path).isZero();
      assertThat(out.toString()).as(path).startsWith("Usage: healthctl " + path).contains("-h, --help");
      StringWriter whole = new StringWriter();
      Healthctl.commandLine().setOut(new PrintWriter(whole)).execute(line);
      assertThat(out.toString()).as(path).isEqualTo(whole.toString());
    }
  }

  @Test
  void buildsTheNamedSubcommandAlone_whenTheArgumentsStartWithOne() {
    assertThat(Healthctl.commandLine("get", "zone").getSubcommands()).containsOnlyKeys("get");
    assertThat(Healthctl.commandLine("audit", "state-at").getSubcommands()).containsOnlyKeys("audit");
    assertThat(Healthctl.commandLine("audit", "state-at").getSubcommands().get("audit").getSubcommands())
        .containsKey("state-at");
    // help lists every command, a mistyped one gets suggestions, completion describes them all
    int all = Healthctl.SUBCOMMANDS.size();
    assertThat(Healthctl.commandLine("--help").getSubcommands()).hasSize(all);
    assertThat(Healthctl.commandLine().getSubcommands()).hasSize(all);
    assertThat(Healthctl.commandLine("gett").getSubcommands()).hasSize(all);
    assertThat(Healthctl.commandLine("completion", "bash").getSubcommands()).hasSize(all);
  }

  @Test
  void exits2WithUsage_whenArgumentsAreWrong() {
    StringWriter err = new StringWriter();
    CommandLine cli = Healthctl.commandLine().setErr(new PrintWriter(err));
    assertThat(cli.execute("apply")).isEqualTo(2);
    assertThat(err.toString()).contains("Missing required option: '--filename");
    assertThat(Healthctl.commandLine().setErr(new PrintWriter(new StringWriter())).execute("probe", "publish",
        "--service", "s")).isEqualTo(2);
    assertThat(Healthctl.commandLine().setErr(new PrintWriter(new StringWriter())).execute("get", "gadgets")).isEqualTo(2);
  }

  @Test
  void exits2_whenValidatingAnInvalidFileOffline(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path file = dir.resolve("bad.yaml");
    java.nio.file.Files.writeString(file, "kind: HealthAggregationPolicy\nname: p\nhealthyPercentThreshold: 150\n");
    StringWriter err = new StringWriter();
    int exit = Healthctl.commandLine().setErr(new PrintWriter(err)).execute("validate", "--offline", "-f", file.toString());
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains(file + ":1: healthyPercentThreshold: 150 is outside 0..100 (R-AGG-1)");
  }

  @Test
  void printsAndCountsWarnings_whenValidatingAShortExternalInterval_R_DNSHC_4(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) throws Exception {
    java.nio.file.Path file = dir.resolve("fast.yaml");
    java.nio.file.Files.writeString(file, """
        kind: ManagedZone
        name: z
        dnsName: z.internal.
        networks: [10.0.0.0/8]
        ---
        kind: ResourceRecordSet
        zone: z
        name: api.z.internal.
        type: A
        ttl: 30
        routingPolicy:
          healthCheck: {checkIntervalSec: 5}
          wrr:
            items:
              - weight: 1
                rrdatas: [10.2.0.7]
                healthCheckedTargets: {externalEndpoints: [10.2.0.7]}
        """);
    StringWriter err = new StringWriter();
    StringWriter out = new StringWriter();
    int exit = Healthctl.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute("validate", "--offline", "-f", file.toString());
    assertThat(exit).isZero();
    assertThat(err.toString()).contains("warning: " + file + ":2: routingPolicy.healthCheck.checkIntervalSec: 5 s is"
        + " below the usual 30 s minimum").contains("(R-DNSHC-4)").contains("1 warning(s)");
    assertThat(out.toString()).contains("valid");
  }

  private static void collect(CommandLine line, String prefix, List<String> paths) {
    line.getSubcommands().forEach((name, sub) -> {
      if (!name.equals("help")) {
        String path = (prefix + " " + name).strip();
        paths.add(path);
        collect(sub, path, paths);
      }
    });
  }
}
