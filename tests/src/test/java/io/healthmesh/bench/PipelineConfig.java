package io.healthmesh.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The configuration of the pipeline benchmark as a user writes it (YAML for {@code healthctl
 * apply}): zone {@code bench.example.}, N WRR record sets {@code r<i>}, each weight 100 on a
 * primary and 0 on a standby, both probed external endpoints; {@code api}, the one flipped; and
 * backend service {@code control}, whose endpoints no record set checks.
 */
final class PipelineConfig {
  static final String FLIPPED = "10.255.0.100";
  static final String FLIPPED_STANDBY = "10.255.0.101";
  /** A backend service no record set checks: its endpoints' flips are the topology's work without the edge's. */
  static final String CONTROL = "control";
  static final int CONTROL_ENDPOINTS = 1000;

  private PipelineConfig() {}

  static Path write(Path file, int n) throws IOException {
    try (BufferedWriter out = Files.newBufferedWriter(file)) {
      out.write("kind: ManagedZone\nname: bench\ndnsName: bench.example.\nnetworks: [127.0.0.0/8]\n");
      out.write(recordSet("api", FLIPPED, FLIPPED_STANDBY));
      out.write("---\nkind: BackendService\nname: " + CONTROL + "\nregion: us-east1\nloadBalancingScheme: INTERNAL_MANAGED\n"
          + "backendType: GCE_VM_IP_PORT\nhealthCheck: {checkIntervalSec: 1, healthyThreshold: 1, unhealthyThreshold: 1,"
          + " staleAfterIntervals: 3600}\nendpoints:\n");
      for (int k = 0; k < CONTROL_ENDPOINTS; k++) {
        out.write("  - {id: e" + k + ", ipAddress: 10.254." + (k >> 8) + "." + (k & 255) + ", port: 8080}\n");
      }
      for (int i = 0; i < n; i++) {
        out.write(recordSet("r" + i, EdgeScaleBenchmark.primary(i), EdgeScaleBenchmark.standby(i)));
      }
    }
    return file;
  }

  private static String recordSet(String label, String primary, String standby) {
    return "---\nkind: ResourceRecordSet\nzone: bench\nname: " + label + ".bench.example.\ntype: A\nttl: 30\n"
        + "routingPolicy:\n  healthCheck: {checkIntervalSec: 1, healthyThreshold: 1, unhealthyThreshold: 1,"
        + " staleAfterIntervals: 3600}\n  wrr:\n    items:\n"
        + "      - weight: 100\n        rrdatas: [" + primary + "]\n        healthCheckedTargets: {externalEndpoints: ["
        + primary + "]}\n"
        + "      - weight: 0\n        rrdatas: [" + standby + "]\n        healthCheckedTargets: {externalEndpoints: ["
        + standby + "]}\n";
  }

  /** Runs {@code healthctl apply -f file} in its own JVM; returns its wall time in seconds. */
  static double apply(Path file, String bootstrap, String registry, String jvmFlags, Path dir) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    Arrays.stream(jvmFlags.trim().split("\\s+")).filter(f -> !f.isEmpty()).forEach(command::add);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.healthmesh.cli.Healthctl", "apply",
        "--timings", "-f", file.toString(), "--bootstrap-servers", bootstrap, "--schema-registry-url", registry));
    long t0 = System.nanoTime();
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("apply.log").toFile())
        .start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("apply failed: " + Files.readString(dir.resolve("apply.log")).lines()
          .filter(l -> !l.contains(" created")).limit(20).toList());
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    Files.readAllLines(dir.resolve("apply.log")).stream().filter(l -> l.startsWith("timings:"))
        .forEach(l -> System.out.println("  apply " + l));
    return seconds;
  }

  /** Record set indexes to check: the last ones written, the first, and some at random. */
  static List<Integer> sample(int n) {
    List<Integer> sample = new ArrayList<>(List.of(n - 1, n - 2, n / 2, 0));
    Random random = new Random(11);
    for (int i = 0; i < 40; i++) {
      sample.add(random.nextInt(n));
    }
    return sample;
  }
}
