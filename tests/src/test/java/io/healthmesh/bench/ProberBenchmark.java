package io.healthmesh.bench;

import com.sun.net.httpserver.HttpServer;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import java.io.BufferedWriter;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One {@code healthctl probe run} checking {@code bench.prober.endpoints} (100,000) HTTP endpoints
 * every {@code bench.prober.interval} (30) seconds against local servers, beside Prometheus's
 * blackbox_exporter (Debian's {@code prometheus-blackbox-exporter}) made to probe the same targets
 * at the same rate, as Prometheus would drive it: how late the prober's checks start against
 * their schedule (target p99 <= 1 s), its CPU per check against the exporter's (target <= 1.0x),
 * and both processes' memory. The servers and the exporter's driver run in this JVM, whose CPU
 * is counted for neither; the prober's results go to a real broker.
 */
public final class ProberBenchmark {
  private static final int ENDPOINTS = Integer.getInteger("bench.prober.endpoints", 100_000);
  private static final int INTERVAL_SEC = Integer.getInteger("bench.prober.interval", 30);
  private static final int SECONDS = Integer.getInteger("bench.prober.seconds", 60);
  private static final int SERVERS = 16;
  private static final int PER_SERVICE = 100;
  /** Clock ticks per second of /proc/PID/stat's CPU times. */
  private static final double TICKS = 100.0;

  private ProberBenchmark() {}

  public static void main(String[] args) throws Exception {
    double rate = (double) ENDPOINTS / INTERVAL_SEC;
    System.out.printf("prober benchmark: %,d HTTP endpoints every %d s (%,.0f checks/s) on %d local servers, %d s"
        + " measured%n", ENDPOINTS, INTERVAL_SEC, rate, SERVERS, SECONDS);
    Path dir = Files.createTempDirectory("bench-prober");
    List<HttpServer> servers = new ArrayList<>();
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(3).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      for (int i = 0; i < SERVERS; i++) {
        servers.add(target());
      }
      Path yaml = config(dir.resolve("targets.yaml"), servers);
      System.out.printf("healthctl apply: %.1f s%n",
          PipelineConfig.apply(yaml, kafka.bootstrapServers(), registry.url(), "-Xmx2g", dir));
      Measured prober = prober(kafka, registry, dir);
      if (Boolean.getBoolean("bench.prober.only")) {
        System.out.println(prober.row("healthctl probe run"));
        return;
      }
      Measured exporter = exporter(servers, rate, dir);
      System.out.println();
      System.out.println("| process | checks/s | CPU µs per check | late p99 | peak RSS |");
      System.out.println("|---|---|---|---|---|");
      System.out.println(prober.row("healthctl probe run"));
      System.out.println(exporter.row("blackbox_exporter 0.23 (anchor)"));
      System.out.printf("%nratio CPU per check, prober / blackbox_exporter: %.2f (target <= 1.0); prober's p99"
          + " lateness %.3f s (target <= 1 s)%n", prober.cpuMicrosPerCheck() / exporter.cpuMicrosPerCheck(),
          prober.lateP99());
    } finally {
      servers.forEach(s -> s.stop(0));
    }
  }

  /** What one process did over the measured window. */
  record Measured(double checksPerSecond, double cpuMicrosPerCheck, double lateP99, long peakRssMb, String note) {
    String row(String name) {
      return String.format("| %s | %,.0f | %.0f | %s | %,d MB |%s", name, checksPerSecond, cpuMicrosPerCheck,
          Double.isNaN(lateP99) ? "-" : String.format("%.3f s", lateP99), peakRssMb, note);
    }
  }

  /** An HTTP server on 127.0.0.1 answering 200 to every check. */
  private static HttpServer target() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
    byte[] body = "ok\n".getBytes(StandardCharsets.US_ASCII);
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.start();
    return server;
  }

  /** Backend services of {@link #PER_SERVICE} endpoints each, spread over the servers' ports. */
  private static Path config(Path file, List<HttpServer> servers) throws IOException {
    try (BufferedWriter out = Files.newBufferedWriter(file)) {
      for (int s = 0; s * PER_SERVICE < ENDPOINTS; s++) {
        out.write("---\nkind: BackendService\nname: web-" + s + "\nregion: us-east1\nloadBalancingScheme:"
            + " INTERNAL_MANAGED\nbackendType: GCE_VM_IP_PORT\nhealthCheck: {protocol: HTTP, requestPath: /healthz,"
            + " checkIntervalSec: " + INTERVAL_SEC + ", timeoutSec: 5}\nendpoints:\n");
        for (int e = 0; e < PER_SERVICE && s * PER_SERVICE + e < ENDPOINTS; e++) {
          int port = servers.get((s * PER_SERVICE + e) % servers.size()).getAddress().getPort();
          out.write("  - {id: vm-" + e + ", ipAddress: 127.0.0.1, port: " + port + "}\n");
        }
      }
    }
    return file;
  }

  private static Measured prober(EmbeddedKafka kafka, SchemaRegistry registry, Path dir) throws Exception {
    int metricsPort = freePort();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    // -Dbench.prober.jvm='-XX:StartFlightRecording=...' to profile it
    java.util.Arrays.stream(System.getProperty("bench.prober.jvm", "").trim().split("\\s+")).filter(f -> !f.isEmpty())
        .forEach(command::add);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.healthmesh.cli.Healthctl", "probe", "run",
        "--bootstrap-servers", kafka.bootstrapServers(), "--schema-registry-url", registry.url(),
        "--prober", "bench", "--metrics-port", String.valueOf(metricsPort)));
    command.addAll(List.of(System.getProperty("bench.prober.args", "").trim().split("\\s+")).stream()
        .filter(a -> !a.isEmpty()).toList());
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("prober.log").toFile())
        .start();
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
    try {
      String metrics = "http://127.0.0.1:" + metricsPort + "/metrics";
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      while (targets(metrics) < ENDPOINTS) {
        if (System.nanoTime() > deadline || !p.isAlive()) {
          throw new IllegalStateException("the prober did not take its targets: " + Files.readString(dir.resolve("prober.log")));
        }
        Thread.sleep(500);
      }
      System.out.println("prober: " + ENDPOINTS + " targets scheduled");
      caughtUp(metrics);
      String before = scrape(metrics);
      long cpu0 = cpuTicks(p.pid());
      long self0 = cpuTicks(ProcessHandle.current().pid());
      long[] machine0 = machineTicks();
      long t0 = System.nanoTime();
      Thread.sleep(SECONDS * 1000L);
      String after = scrape(metrics);
      long cpu1 = cpuTicks(p.pid());
      long self1 = cpuTicks(ProcessHandle.current().pid());
      long[] machine1 = machineTicks();
      double seconds = (System.nanoTime() - t0) / 1e9;
      double checks = value(after, "healthmesh_prober_checks_total") - value(before, "healthmesh_prober_checks_total");
      double failed = value(after, "healthmesh_prober_checks_total{result=\"failure\"")
          - value(before, "healthmesh_prober_checks_total{result=\"failure\"");
      return new Measured(checks / seconds, (cpu1 - cpu0) / TICKS * 1e6 / checks,
          p99(before, after, "healthmesh_prober_check_lateness_seconds_bucket"),
          ProcessStats.peakRssBytes(String.valueOf(p.pid())) >> 20, (failed > 0 ? " " + (long) failed + " failed" : "")
          + String.format(" check p99 %.3f s, %d skipped; cores busy: prober %.2f, servers and broker %.2f, machine %.2f"
              + " of %d", p99(before, after, "healthmesh_prober_check_duration_seconds_bucket"),
              (long) (value(after, "healthmesh_prober_checks_skipped_total")
                  - value(before, "healthmesh_prober_checks_skipped_total")),
              (cpu1 - cpu0) / TICKS / seconds, (self1 - self0) / TICKS / seconds,
              (machine1[0] - machine0[0]) / TICKS / seconds, Runtime.getRuntime().availableProcessors()));
    } finally {
      p.destroy();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /**
   * Waits for the prober to reach its pace: a start-up runs late while the JIT compiles the prober
   * (and the servers) and the first interval's checks pile up; a prober runs for days, so its
   * schedule is measured once a 5 s window's p99 lateness is within 1 s (at most four intervals).
   * The time it took is printed.
   */
  private static void caughtUp(String metrics) throws Exception {
    long start = System.nanoTime();
    Thread.sleep(INTERVAL_SEC * 1000L); // every target's first turn comes within an interval
    String last = scrape(metrics);
    double late = Double.POSITIVE_INFINITY;
    while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4L * INTERVAL_SEC)) {
      Thread.sleep(5_000);
      String now = scrape(metrics);
      late = p99(last, now, "healthmesh_prober_check_lateness_seconds_bucket");
      last = now;
      if (late <= 1.0) {
        break;
      }
    }
    System.out.printf("prober at its pace %.0f s after its targets were scheduled (last 5 s p99 lateness %.3f s)%n",
        (System.nanoTime() - start) / 1e9, late);
  }

  /**
   * The exporter probing every target once per interval, as Prometheus scraping it with one job
   * per target would: a request per check to its /probe endpoint, spread evenly in time.
   */
  private static Measured exporter(List<HttpServer> servers, double rate, Path dir) throws Exception {
    int port = freePort();
    Process p = new ProcessBuilder("prometheus-blackbox-exporter", "--config.file=/etc/prometheus/blackbox.yml",
        "--web.listen-address=127.0.0.1:" + port).redirectErrorStream(true)
        .redirectOutput(dir.resolve("exporter.log").toFile()).start();
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
    HttpClient client = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(2)).build();
    AtomicLong done = new AtomicLong();
    AtomicLong succeeded = new AtomicLong();
    AtomicLong skipped = new AtomicLong();
    Semaphore inFlight = new Semaphore(2_000);
    var driver = Executors.newSingleThreadScheduledExecutor();
    try {
      awaitUp("http://127.0.0.1:" + port + "/metrics", p, dir.resolve("exporter.log"));
      long[] sent = {0};
      long start = System.nanoTime();
      driver.scheduleAtFixedRate(() -> {
        long due = (long) ((System.nanoTime() - start) / 1e9 * rate);
        for (; sent[0] < due; sent[0]++) {
          if (!inFlight.tryAcquire()) {
            skipped.incrementAndGet();
            continue;
          }
          int target = servers.get((int) (sent[0] % servers.size())).getAddress().getPort();
          URI uri = URI.create("http://127.0.0.1:" + port + "/probe?module=http_2xx&target=http://127.0.0.1:" + target
              + "/healthz");
          client.sendAsync(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
              .whenComplete((r, e) -> {
                inFlight.release();
                done.incrementAndGet();
                if (e == null && r.body().contains("\nprobe_success 1")) {
                  succeeded.incrementAndGet();
                }
              });
        }
      }, 0, 10, TimeUnit.MILLISECONDS);
      Thread.sleep(10_000); // its pace first
      long n0 = done.get();
      long ok0 = succeeded.get();
      long cpu0 = cpuTicks(p.pid());
      long t0 = System.nanoTime();
      Thread.sleep(SECONDS * 1000L);
      long n1 = done.get();
      long cpu1 = cpuTicks(p.pid());
      double seconds = (System.nanoTime() - t0) / 1e9;
      long failed = (n1 - n0) - (succeeded.get() - ok0);
      return new Measured((n1 - n0) / seconds, (cpu1 - cpu0) / TICKS * 1e6 / (n1 - n0), Double.NaN,
          ProcessStats.peakRssBytes(String.valueOf(p.pid())) >> 20,
          (failed > 0 ? " " + failed + " failed" : "") + (skipped.get() > 0 ? " " + skipped.get() + " not sent" : ""));
    } finally {
      driver.shutdownNow();
      p.destroy();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }

  private static void awaitUp(String url, Process p, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        scrape(url);
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline || !p.isAlive()) {
          throw new IllegalStateException("blackbox_exporter did not start: " + Files.readString(log), e);
        }
        Thread.sleep(200);
      }
    }
  }

  /** The prober's targets, 0 while its metrics are not served yet (they are once it has read its configuration). */
  private static double targets(String metrics) {
    try {
      return value(scrape(metrics), "healthmesh_prober_targets");
    } catch (IOException e) {
      return 0;
    }
  }

  /** utime + stime of a process, in clock ticks. */
  /** The machine's busy clock ticks, from /proc/stat's first line (all but idle and iowait). */
  private static long[] machineTicks() throws IOException {
    String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    long busy = 0;
    for (int i = 1; i < f.length && i <= 8; i++) {
      if (i != 4 && i != 5) {
        busy += Long.parseLong(f[i]);
      }
    }
    return new long[] {busy};
  }

  private static long cpuTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  private static String scrape(String url) throws IOException {
    try {
      return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
          .build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** The sum of the samples whose line starts with {@code prefix}. */
  private static double value(String metrics, String prefix) {
    return metrics.lines().filter(l -> l.startsWith(prefix) && !l.startsWith("#"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
  }

  /** The 99th percentile of a histogram's observations between two scrapes, by its buckets' bounds. */
  private static double p99(String before, String after, String bucket) {
    Map<Double, Double> counts = new TreeMap<>();
    for (String[] scrape : new String[][] {{before, "-1"}, {after, "1"}}) {
      scrape[0].lines().filter(l -> l.startsWith(bucket + "{")).forEach(l -> {
        String le = l.substring(l.indexOf("le=\"") + 4, l.indexOf('"', l.indexOf("le=\"") + 4));
        double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
        counts.merge(bound, Double.parseDouble(scrape[1]) * Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)),
            Double::sum);
      });
    }
    double total = counts.getOrDefault(Double.POSITIVE_INFINITY, 0.0);
    for (Map.Entry<Double, Double> e : counts.entrySet()) {
      if (e.getValue() >= 0.99 * total) {
        return e.getKey();
      }
    }
    return Double.NaN;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
