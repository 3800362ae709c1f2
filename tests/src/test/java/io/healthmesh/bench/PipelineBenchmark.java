package io.healthmesh.bench;

import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The whole pipeline as a user runs it: configuration through {@code healthctl apply} (its own
 * JVM, the launcher's flags), health through probes to {@code probe-results}, the topology and
 * the edges each in their own process, DNS asked over real sockets (dnsjava, dnsperf). At each
 * size: apply, first judgement, one flip, churn beside control rounds, a region failing and
 * recovering, and a fresh edge. {@code -Dbench=pipeline}.
 */
public final class PipelineBenchmark {
  private static final List<Integer> SIZES = Benchmarks.sizes();
  private static final int FLIPS = Integer.getInteger("bench.flips", 20);
  private static final int CHURN_RATE = Integer.getInteger("bench.churn.rate", 100);
  private static final int CHURN_SECONDS = Integer.getInteger("bench.churn.seconds", 30);
  private static final int ROUNDS = Integer.getInteger("bench.rounds", 3);
  private static final int ROUND_SECONDS = Integer.getInteger("bench.round.seconds", 10);
  private static final String TOPOLOGY_JVM = System.getProperty("bench.topology.jvm", "");
  /** The launcher's flags for apply (./healthctl). */
  private static final String APPLY_JVM = System.getProperty("bench.apply.jvm",
      "-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:+UseParallelGC -XX:InitialRAMPercentage=4 -Xmn64m");
  private static final String APP_ID = "bench-pipeline";
  private static final int SETTLE_SECONDS = Integer.getInteger("bench.settle.seconds", 10);

  private PipelineBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<String> table = new ArrayList<>();
    for (int n : SIZES) {
      table.add(run(n));
    }
    System.out.printf("%nwhole pipeline (apply, probes, topology and edges in their own JVMs):%n"
        + "| record sets | apply CLI s | served after s | first judgement s (transitions/s) | one flip p50/max ms"
        + " | churn p50/p99 ms | q/s churn/control | edge CPU/query churn/control | snapshots/s"
        + " | fail s topology/edge | recover s topology/edge | fresh edge ready s, RSS MB |%n");
    table.forEach(System.out::println);
  }

  private static String run(int n) throws Exception {
    System.out.printf("%n== N = %,d record sets over %,d probed external endpoints ==%n", n, 2 * n);
    Path dir = Files.createTempDirectory("bench-pipeline");
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(3).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      Properties sp = TopologyProcess.settings(kafka.bootstrapServers(), registry.url(), APP_ID, dir.resolve("streams"));
      Path yaml = PipelineConfig.write(dir.resolve("config.yaml"), n);
      try (TopologyProcess topology = TopologyProcess.start(sp, TOPOLOGY_JVM, Files.createDirectories(dir.resolve("t")));
          EdgeScaleBenchmark.Edge edge = EdgeScaleBenchmark.Edge.start(kafka.bootstrapServers(), registry.url(),
              Files.createDirectories(dir.resolve("edge")));
          HealthWatch health = HealthWatch.start(kafka.bootstrapServers(), client);
          KafkaProducer<String, ProbeResult> probes = Probes.producer(kafka.bootstrapServers(), client)) {
        Dns dns = new Dns(edge.port);
        // An operator applies to a running system: both JVMs past their start-up's JIT work first.
        edge.awaitHealthy(Duration.ofMinutes(1));
        Thread.sleep(SETTLE_SECONDS * 1000L);
        // apply: the CLI's wall time, then until the edge serves a sample of the record sets
        double cli = PipelineConfig.apply(yaml, kafka.bootstrapServers(), registry.url(), APPLY_JVM, dir);
        long t0 = System.nanoTime();
        dns.awaitServed(PipelineConfig.sample(n), Duration.ofMinutes(5));
        double served = (System.nanoTime() - t0) / 1e9;
        System.out.printf("apply of %,d record sets: %.1f s in the CLI, served %.1f s after it returned%n", n, cli, served);
        edge.awaitReady(Duration.ofMinutes(1));
        health.awaitTopologyKnows(APP_ID, Duration.ofMinutes(5));

        // first judgement: every endpoint's first probe, HEALTHY
        t0 = System.nanoTime();
        Cpu cpu = new Cpu(topology, edge);
        Probes.all(probes, n, true, true);
        health.await(HealthStatus.HEALTHY, 2 * n + 2, Duration.ofMinutes(10));
        double first = (System.nanoTime() - t0) / 1e9;
        System.out.printf("first judgement: %,d endpoints HEALTHY in the topology %.1f s after the first probe"
            + " (%,.0f transitions/s); %s%n", 2 * n + 2, first, (2 * n + 2) / first, cpu.since(2 * n + 2));

        List<Long> flips = new ArrayList<>();
        boolean up = true;
        for (int i = 0; i < FLIPS + 2; i++) {
          up = !up;
          long ms = Probes.flipAndWait(probes, dns, PipelineConfig.FLIPPED, up, up ? PipelineConfig.FLIPPED
              : PipelineConfig.FLIPPED_STANDBY, Duration.ofSeconds(30));
          if (i >= 2) {
            flips.add(ms); // the first two warm the path
          }
        }
        Collections.sort(flips);
        System.out.printf("one flip, probe -> DNS: p50 %d ms, max %d ms over %d%n", pct(flips, 0.5),
            flips.get(flips.size() - 1), flips.size());

        Churn churn = Churn.run(probes, edge, n, CHURN_RATE, CHURN_SECONDS, ROUNDS, ROUND_SECONDS, dir);

        // a region failing: every primary at once, then back
        double[] fail = mass(probes, health, dns, n, false, topology, edge);
        double[] recover = mass(probes, health, dns, n, true, topology, edge);
        System.out.printf("%,d endpoints fail at once: topology %.1f s, edge %.1f s; recover: %.1f s, %.1f s%n", n,
            fail[0], fail[1], recover[0], recover[1]);

        double fresh;
        long rss;
        try (EdgeScaleBenchmark.Edge second = EdgeScaleBenchmark.Edge.start(kafka.bootstrapServers(), registry.url(),
            Files.createDirectories(dir.resolve("edge2")))) {
          fresh = second.awaitReady(Duration.ofMinutes(5));
          new Dns(second.port).awaitServed(PipelineConfig.sample(n), Duration.ofMinutes(1));
          Thread.sleep(5_000);
          rss = second.rss()[1] >> 20;
        }
        System.out.printf("fresh edge: ready (answering) %.1f s after its start; peak RSS %,d MB%n", fresh, rss);
        return String.format("| %,d | %.1f | %.1f | %.1f (%,.0f) | %d / %d | %d / %d | %.2f | %.2f | %.0f | %.1f / %.1f"
            + " | %.1f / %.1f | %.1f, %,d |", n, cli, served, first, (2 * n + 2) / first, pct(flips, 0.5),
            flips.get(flips.size() - 1), churn.p50(), churn.p99(), churn.qpsRatio(), churn.cpuRatio(),
            churn.snapshotsPerSecond(), fail[0], fail[1], recover[0], recover[1], fresh, rss);
      }
    }
  }

  /** Every primary fails (or recovers) at once: seconds until the topology has judged all, and until DNS shows it. */
  private static double[] mass(KafkaProducer<String, ProbeResult> probes, HealthWatch health, Dns dns, int n, boolean up,
      TopologyProcess topology, EdgeScaleBenchmark.Edge edge) throws Exception {
    long t0 = System.nanoTime();
    Cpu cpu = new Cpu(topology, edge);
    Probes.all(probes, n, up, false);
    health.awaitPrimaries(n, up ? HealthStatus.HEALTHY : HealthStatus.UNHEALTHY, Duration.ofMinutes(10));
    double judged = (System.nanoTime() - t0) / 1e9;
    dns.awaitAnswers(PipelineConfig.sample(n), up, Duration.ofMinutes(5));
    System.out.printf("  %,d endpoints %s: %s%n", n, up ? "recover" : "fail", cpu.since(n));
    return new double[] {judged, (System.nanoTime() - t0) / 1e9};
  }

  /** CPU of each process over a phase: where a mass change's time goes on a shared machine. */
  private static final class Cpu {
    private final TopologyProcess topology;
    private final EdgeScaleBenchmark.Edge edge;
    private final long[] at;
    private final long wall = System.nanoTime();

    Cpu(TopologyProcess topology, EdgeScaleBenchmark.Edge edge) {
      this.topology = topology;
      this.edge = edge;
      this.at = now();
    }

    private long[] now() {
      return new long[] {topology.cpuNanos(), EdgeBenchmark.ticksOf(edge.process.pid()) * 10_000_000L,
          ProcessStats.cpuNanos()};
    }

    /** CPU seconds of each process, and per 1,000 changes. */
    String since(int changes) {
      long[] end = now();
      double seconds = (System.nanoTime() - wall) / 1e9;
      String[] names = {"topology", "edge", "broker, registry and this harness"};
      StringBuilder text = new StringBuilder("CPU over " + String.format("%.1f", seconds) + " s of 2 cores:");
      for (int i = 0; i < names.length; i++) {
        double cpu = (end[i] - at[i]) / 1e9;
        text.append(String.format(" %s %.1f s (%.2f s per 1,000)", names[i], cpu, cpu * 1000 / changes));
      }
      return text.toString();
    }
  }

  static long pct(List<Long> sorted, double p) {
    return sorted.isEmpty() ? -1 : sorted.get(Math.max(0, (int) Math.ceil(sorted.size() * p) - 1));
  }
}
