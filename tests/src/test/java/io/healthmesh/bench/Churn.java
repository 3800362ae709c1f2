package io.healthmesh.bench;

import io.healthmesh.events.ProbeResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Probe flips of random primaries at a steady rate. After an unmeasured warm-up, first alone, one
 * flip in ten watched from its probe to the DNS answer that shows it; then in rounds under dnsperf:
 * dnsperf alone, with control churn, with DNS churn, so that the machine's drift hits all alike.
 *
 * @param p50 probe -> DNS of the watched flips, milliseconds
 * @param qpsRatio median queries/s with DNS churn over the control rounds' (the same flips of
 *     endpoints no record set checks: the topology's and broker's work, none for the edge)
 * @param cpuRatio median edge CPU per answered query with DNS churn over the control rounds'
 */
record Churn(long p50, long p99, double qpsRatio, double cpuRatio, double snapshotsPerSecond) {

  /** Which primary (or control endpoint) flips next, and which are down. */
  private static final class Flips {
    final List<Integer> order = new ArrayList<>();
    final boolean[] down;
    final boolean control;
    int next;

    Flips(int n, boolean control) {
      for (int i = 0; i < n; i++) {
        order.add(i);
      }
      Collections.shuffle(order, new Random(5));
      down = new boolean[n];
      this.control = control;
    }

    /** Flips the next one; returns its index. */
    int flip(KafkaProducer<String, ProbeResult> probes) {
      int i = order.get(next++ % order.size());
      down[i] = !down[i];
      send(probes, i);
      probes.flush();
      return i;
    }

    /** Every one up again, for what follows. */
    void restore(KafkaProducer<String, ProbeResult> probes) {
      for (int i = 0; i < down.length; i++) {
        if (down[i]) {
          down[i] = false;
          send(probes, i);
        }
      }
      probes.flush();
    }

    private void send(KafkaProducer<String, ProbeResult> probes, int i) {
      if (control) {
        Probes.control(probes, i, !down[i]);
      } else {
        Probes.send(probes, EdgeScaleBenchmark.primary(i), !down[i]);
      }
    }
  }

  static Churn run(KafkaProducer<String, ProbeResult> probes, EdgeScaleBenchmark.Edge edge, int n, int rate,
      int latencySeconds, int rounds, int seconds, Path dir) throws Exception {
    Flips flips = new Flips(n, false);
    Flips control = new Flips(PipelineConfig.CONTROL_ENDPOINTS, true);
    for (int k = 0; k < PipelineConfig.CONTROL_ENDPOINTS; k++) {
      Probes.control(probes, k, true);
    }
    flip(probes, flips, rate, 10, (i, wanted, sent) -> {}); // warm-up of every JIT on the way, unmeasured
    List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
    double s0 = edge.metric("healthmesh_edge_snapshot_build_seconds_count");
    String before = edge.metrics();
    ExecutorService watchers = Executors.newFixedThreadPool(8);
    flip(probes, flips, rate, latencySeconds, (i, wanted, sent) ->
        watchers.submit(() -> watch(new Dns(edge.port), i, wanted, sent, latencies)));
    watchers.shutdown();
    watchers.awaitTermination(30, TimeUnit.SECONDS);
    double snapshots = (edge.metric("healthmesh_edge_snapshot_build_seconds_count") - s0) / latencySeconds;
    String after = edge.metrics();
    for (String part : List.of("topology", "edge")) {
      Histogram h = Histogram.between(before, after, "healthmesh_edge_probe_to_answer_seconds", "part=\"" + part + "\"");
      System.out.printf("  the %s's part (edge metric healthmesh_edge_probe_to_answer_seconds): mean %.0f ms, p50 <= %.0f ms,"
          + " p99 <= %.0f ms over %,d changes%n", part, h.mean() * 1e3, h.quantile(0.5) * 1e3, h.quantile(0.99) * 1e3,
          h.count());
    }
    List<Long> sorted = new ArrayList<>(latencies);
    Collections.sort(sorted);

    Path queries = queries(dir, n);
    perf(edge, queries, 5); // warm-up, unmeasured
    List<Double> controlQps = new ArrayList<>();
    List<Double> churnQps = new ArrayList<>();
    List<Double> controlCpu = new ArrayList<>();
    List<Double> churnCpu = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      double[] alone = perf(edge, queries, seconds);
      double[] controlled = perfWhile(edge, queries, seconds, () -> flip(probes, control, rate, seconds, (i, w, t) -> {}));
      double[] loaded = perfWhile(edge, queries, seconds, () -> flip(probes, flips, rate, seconds, (i, w, t) -> {}));
      controlQps.add(controlled[0]);
      churnQps.add(loaded[0]);
      controlCpu.add(controlled[1]);
      churnCpu.add(loaded[1]);
      System.out.printf("  round %d: q/s and edge CPU µs per query: alone %,.0f, %.2f; control churn (the topology's"
          + " work, none for the edge) %,.0f, %.2f; DNS churn %,.0f, %.2f%n", round, alone[0], alone[1], controlled[0],
          controlled[1], loaded[0], loaded[1]);
    }
    flips.restore(probes);
    control.restore(probes);
    Churn churn = new Churn(PipelineBenchmark.pct(sorted, 0.5), PipelineBenchmark.pct(sorted, 0.99),
        median(churnQps) / median(controlQps), median(churnCpu) / median(controlCpu), snapshots);
    System.out.printf("churn at %d flips/s for %d s: probe -> DNS p50 %d ms, p99 %d ms (%d watched), %.1f edge"
        + " snapshots/s; under dnsperf, q/s with DNS churn / control churn %.2f, edge CPU per query %.2f%n", rate,
        latencySeconds, churn.p50(), churn.p99(), sorted.size(), snapshots, churn.qpsRatio(), churn.cpuRatio());
    return churn;
  }

  /** Called for every tenth flip: record set {@code i} should now answer {@code wanted}. */
  private interface Watch {
    void flipped(int i, String wanted, long sentNanos);
  }

  private static void flip(KafkaProducer<String, ProbeResult> probes, Flips flips, int rate, int seconds, Watch watch) {
    long start = System.nanoTime();
    for (int k = 0; k < rate * seconds; k++) {
      long sent = System.nanoTime();
      int i = flips.flip(probes);
      if (k % 10 == 0) {
        watch.flipped(i, flips.down[i] ? EdgeScaleBenchmark.standby(i) : EdgeScaleBenchmark.primary(i), sent);
      }
      long wait = start + (k + 1) * 1_000_000_000L / rate - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
    }
  }

  private static void watch(Dns dns, int i, String wanted, long sent, List<Long> latencies) {
    long deadline = sent + 10_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (dns.answer("r" + i).equals(wanted)) {
        latencies.add((System.nanoTime() - sent) / 1_000_000);
        return;
      }
      LockSupport.parkNanos(2_000_000);
    }
    latencies.add(10_000L); // not seen within 10 s: counted as 10 s
  }

  private static double[] perfWhile(EdgeScaleBenchmark.Edge edge, Path queries, int seconds, Runnable churn)
      throws Exception {
    Thread flipper = new Thread(churn, "bench-churn");
    flipper.start();
    double[] result = perf(edge, queries, seconds);
    flipper.join();
    return result;
  }

  /** dnsperf for {@code seconds}: queries/s and the edge's CPU microseconds per completed query. */
  private static double[] perf(EdgeScaleBenchmark.Edge edge, Path queries, int seconds) throws Exception {
    long ticks0 = EdgeBenchmark.ticksOf(edge.process.pid());
    Process p = new ProcessBuilder("dnsperf", "-s", "127.0.0.1", "-p", String.valueOf(edge.port), "-d", queries.toString(),
        "-l", String.valueOf(seconds), "-c", "4").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    long ticks = EdgeBenchmark.ticksOf(edge.process.pid()) - ticks0;
    double qps = EdgeBenchmark.number(out, "Queries per second:\\s+([0-9.]+)");
    double completed = EdgeBenchmark.number(out, "Queries completed:\\s+([0-9]+)");
    return new double[] {qps, ticks * 10_000.0 / Math.max(1, completed)}; // 100 ticks a second
  }

  private static Path queries(Path dir, int n) throws java.io.IOException {
    Random random = new Random(7);
    StringBuilder lines = new StringBuilder();
    for (int k = 0; k < 100_000; k++) {
      lines.append('r').append(random.nextInt(n)).append(".bench.example A\n");
    }
    return Files.writeString(dir.resolve("queries.txt"), lines);
  }

  private static double median(List<Double> values) {
    return EdgeBenchmark.median(values.stream().mapToDouble(Double::doubleValue).sorted().toArray());
  }
}
