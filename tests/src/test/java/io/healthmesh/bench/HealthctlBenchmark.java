package io.healthmesh.bench;

import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * {@code healthctl}'s read commands as an operator runs them (the launcher script, a JVM per
 * command) against a system holding N record sets over 2N probed endpoints, put there as users do
 * (apply, probes, the topology in its own process). Each command's wall time is set against kcat
 * reading the bytes of the topic it answers from, in the same run. {@code -Dbench=healthctl}.
 */
public final class HealthctlBenchmark {
  private static final int REPEATS = Integer.getInteger("bench.repeats", 3);
  private static final String APP_ID = "bench-healthctl";

  private HealthctlBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<String> table = new ArrayList<>();
    for (int n : Benchmarks.sizes()) {
      table.addAll(run(n));
    }
    System.out.printf("%nhealthctl, each command a JVM of its own through ./healthctl (median of %d):%n"
        + "| record sets | command | lines out | wall s | ratio to kcat | peak RSS MB |%n", REPEATS);
    table.forEach(System.out::println);
  }

  private static List<String> run(int n) throws Exception {
    System.out.printf("%n== N = %,d record sets over %,d probed external endpoints ==%n", n, 2 * n);
    Path dir = Files.createTempDirectory("bench-healthctl");
    Path launcher = launcher();
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(3).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      Properties sp = TopologyProcess.settings(kafka.bootstrapServers(), registry.url(), APP_ID, dir.resolve("streams"));
      Path yaml = PipelineConfig.write(dir.resolve("config.yaml"), n);
      List<String> cluster = List.of("--bootstrap-servers", kafka.bootstrapServers(), "--schema-registry-url",
          registry.url());
      try (TopologyProcess topology = TopologyProcess.start(sp, "", Files.createDirectories(dir.resolve("t")));
          HealthWatch health = HealthWatch.start(kafka.bootstrapServers(), client);
          KafkaProducer<String, ProbeResult> probes = Probes.producer(kafka.bootstrapServers(), client)) {
        Command setup = new Command(launcher, cluster, dir);
        setup.run("apply", "-f", yaml.toString());
        // composites, health sources and backend services beside the record sets, as in the demo
        setup.run("apply", "-f", launcher.resolveSibling("examples").resolve("demo.yaml").toString());
        health.awaitTopologyKnows(APP_ID, Duration.ofMinutes(5));
        Probes.all(probes, n, true, true);
        health.await(HealthStatus.HEALTHY, 2 * n + 2, Duration.ofMinutes(10));
        health.awaitTopologyKnows(APP_ID, Duration.ofMinutes(5));

        String bootstrap = kafka.bootstrapServers();
        if (Boolean.getBoolean("bench.hold")) {
          // for profiling by hand: the system stays up until this JVM is stopped
          System.out.println("holding: " + String.join(" ", cluster));
          Thread.sleep(Long.MAX_VALUE);
        }
        Measure healthBytes = Measure.of(dir, REPEATS, List.of("kcat", "-C", "-q", "-e", "-o", "beginning", "-b",
            bootstrap, "-t", Topics.HEALTH_STATE.name()));
        Measure recordBytes = Measure.of(dir, REPEATS, List.of("kcat", "-C", "-q", "-e", "-o", "beginning", "-b",
            bootstrap, "-t", Topics.RESOURCE_RECORD_SETS.name()));
        List<String> rows = new ArrayList<>();
        rows.add(row(n, "kcat health-state (anchor)", healthBytes, healthBytes));
        rows.add(row(n, "kcat resource-record-sets (anchor)", recordBytes, recordBytes));
        Command cli = new Command(launcher, cluster, dir);
        rows.add(row(n, "--help", cli.measure(false, "--help"), healthBytes));
        // each status question asked of the topology's stores (R-OP-6), then read from health-state
        String stores = topology.url();
        for (String from : List.of("--topology-url=" + stores, "--from-topic")) {
          String how = from.startsWith("--from") ? " --from-topic" : " (stores)";
          rows.add(row(n, "status" + how, cli.measure(true, "status", from), healthBytes));
          rows.add(row(n, "status --kind COMPOSITE_HEALTH_CHECK" + how, cli.measure(true, "status", "--kind",
              "COMPOSITE_HEALTH_CHECK", from), healthBytes));
          rows.add(row(n, "status --name " + EdgeScaleBenchmark.primary(7) + how, cli.measure(true, "status",
              "--name", EdgeScaleBenchmark.primary(7), from), healthBytes));
        }
        rows.add(row(n, "get zone", cli.measure(true, "get", "zone"), recordBytes));
        rows.add(row(n, "get rrs (one)", cli.measure(true, "get", "rrs", "bench/r7.bench.example./A"), recordBytes));
        rows.add(row(n, "get rrs", cli.measure(true, "get", "rrs"), recordBytes));
        rows.add(row(n, "audit state-at", cli.measure(true, "audit", "state-at", "--no-progress"), healthBytes));
        // the batch commands over the whole configuration (nothing changes: it is applied already)
        rows.add(row(n, "validate -f (all)", cli.measure(true, "validate", "-f", yaml.toString()), recordBytes));
        rows.add(row(n, "diff -f (all, no change)", cli.measure(true, "diff", "-f", yaml.toString()), recordBytes));
        rows.forEach(System.out::println);
        return rows;
      }
    }
  }

  private static String row(int n, String command, Measure m, Measure anchor) {
    return String.format("| %,d | `%s` | %,d | %.2f | %.1f | %,d |", n, command, m.lines, m.seconds,
        m.seconds / anchor.seconds, m.rssMb);
  }

  /** ./healthctl at the repository's root, found from the working directory (the root or a module). */
  private static Path launcher() {
    for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
      if (Files.isExecutable(at.resolve("healthctl")) && Files.isDirectory(at.resolve("examples"))) {
        return at.resolve("healthctl");
      }
    }
    throw new IllegalStateException("./healthctl not found above " + Path.of("").toAbsolutePath());
  }

  /** healthctl commands against one cluster. */
  private record Command(Path launcher, List<String> cluster, Path dir) {
    void run(String... args) throws Exception {
      Measure.of(dir, 1, command(true, args));
    }

    Measure measure(boolean withCluster, String... args) throws Exception {
      return Measure.of(dir, REPEATS, command(withCluster, args));
    }

    private List<String> command(boolean withCluster, String... args) {
      List<String> command = new ArrayList<>(List.of(launcher.toString()));
      command.addAll(Arrays.asList(args));
      if (withCluster) {
        command.addAll(cluster);
      }
      return command;
    }
  }

  /** The median wall time of a command run {@code repeats} times under /usr/bin/time, its output's lines and peak RSS. */
  private record Measure(double seconds, long lines, long rssMb) {
    static Measure of(Path dir, int repeats, List<String> command) throws Exception {
      List<Double> times = new ArrayList<>();
      long lines = 0;
      long rss = 0;
      for (int i = 0; i < repeats; i++) {
        Path out = dir.resolve("out.txt");
        Path stats = dir.resolve("time.txt");
        List<String> timed = new ArrayList<>(List.of("/usr/bin/time", "-o", stats.toString(), "-f", "%e %M"));
        timed.addAll(command);
        Process p = new ProcessBuilder(timed).redirectOutput(out.toFile()).redirectError(dir.resolve("err.txt")
            .toFile()).start();
        if (p.waitFor() != 0) {
          throw new IllegalStateException(command + " failed: " + Files.readString(dir.resolve("err.txt")));
        }
        String[] figures = Files.readAllLines(stats).get(Files.readAllLines(stats).size() - 1).trim().split(" ");
        times.add(Double.parseDouble(figures[0]));
        rss = Math.max(rss, Long.parseLong(figures[1]) >> 10);
        try (var stream = Files.lines(out, java.nio.charset.StandardCharsets.ISO_8859_1)) {
          lines = stream.count();
        }
      }
      times.sort(null);
      return new Measure(times.get(times.size() / 2), lines, rss);
    }
  }
}
