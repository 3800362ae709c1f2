package io.healthmesh.bench;

import io.healthmesh.streams.StreamsSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The topology in its own JVM, as {@code healthctl topology} runs it, so that its latency, CPU,
 * memory and garbage collection are its own and not the broker's in the benchmark's JVM.
 */
final class TopologyProcess implements AutoCloseable {
  private static final Pattern PAUSE = Pattern.compile("\\[([0-9.]+)s\\].*Pause.* ([0-9.]+)ms$");

  private static final Pattern METRICS = Pattern.compile("metrics on (http://\\S+)/metrics");
  private final Process process;
  private final Path gcLog;
  private final String baseUrl;

  private TopologyProcess(Process process, Path gcLog, String baseUrl) {
    this.process = process;
    this.gcLog = gcLog;
    this.baseUrl = baseUrl;
  }

  /** Where it serves metrics and status queries (R-OP-6): http://host:port. */
  String url() {
    return baseUrl;
  }

  /** Starts {@code StreamsMain} with these settings and returns once it says it runs. */
  /** The settings of a topology with {@code applicationId} against this broker and registry, its state under {@code stateDir}. */
  static Properties settings(String bootstrap, String registryUrl, String applicationId, Path stateDir) {
    Properties settings = new Properties();
    settings.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, bootstrap);
    settings.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, registryUrl);
    settings.setProperty(StreamsSettings.APPLICATION_ID, applicationId);
    settings.setProperty(StreamsSettings.STATE_DIR, stateDir.toString());
    return settings;
  }

  static TopologyProcess start(Properties settings, String jvmFlags, Path dir) throws IOException {
    Path gcLog = dir.resolve("gc.log");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    Arrays.stream(jvmFlags.trim().split("\\s+")).filter(flag -> !flag.isEmpty()).forEach(command::add);
    command.addAll(List.of("-Xlog:gc:file=" + gcLog + ":uptime", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-cp", System.getProperty("java.class.path"), "io.healthmesh.streams.StreamsMain", "metrics.port=0"));
    settings.stringPropertyNames().forEach(k -> command.add(k + "=" + settings.getProperty(k)));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    // A benchmark stopped with SIGTERM runs no close(): its topology must not outlive it, busy
    // against a broker that is gone, on the cores the next run measures.
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "stop-topology"));
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    List<String> head = new ArrayList<>();
    for (String line; (line = out.readLine()) != null; ) {
      head.add(line);
      if (line.contains("running against")) {
        Thread copier = new Thread(() -> copy(out, dir.resolve("topology.log")), "topology-log");
        copier.setDaemon(true);
        copier.start();
        Matcher url = METRICS.matcher(line);
        return new TopologyProcess(process, gcLog, url.find() ? url.group(1) : null);
      }
    }
    throw new IllegalStateException("the topology exited before it ran:\n" + String.join("\n", head));
  }

  private static void copy(BufferedReader out, Path log) {
    try (PrintWriter file = new PrintWriter(Files.newBufferedWriter(log))) {
      for (String line; (line = out.readLine()) != null; ) {
        file.println(line);
        file.flush();
      }
    } catch (IOException e) {
      // the process ended
    }
  }

  long cpuNanos() {
    return EdgeBenchmark.ticksOf(process.pid()) * 10_000_000L; // USER_HZ is 100 on Linux
  }

  long peakRssBytes() {
    return ProcessStats.peakRssBytes(String.valueOf(process.pid()));
  }

  /** Seconds since the JVM started, as its GC log counts them. */
  double uptimeSeconds() {
    return process.info().startInstant().map(s -> (System.currentTimeMillis() - s.toEpochMilli()) / 1e3).orElse(0.0);
  }

  /** Count, sum and longest of the collector's pauses logged in [from, to] seconds of uptime. */
  String pauses(double from, double to) throws IOException {
    int count = 0;
    double sum = 0;
    double max = 0;
    for (String line : Files.readAllLines(gcLog)) {
      Matcher m = PAUSE.matcher(line);
      if (m.find()) {
        double at = Double.parseDouble(m.group(1));
        double ms = Double.parseDouble(m.group(2));
        if (at >= from && at <= to) {
          count++;
          sum += ms;
          max = Math.max(max, ms);
        }
      }
    }
    return String.format("%d GC pauses, %.0f ms in all, longest %.1f ms", count, sum, max);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    process.waitFor();
  }
}
