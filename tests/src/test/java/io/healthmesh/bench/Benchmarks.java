package io.healthmesh.bench;

/** Entry point of {@code mvn -Pbench verify -pl tests -am [-Dbench=NAME]}. */
public final class Benchmarks {
  private Benchmarks() {}

  /** The sizes a scale benchmark runs at: {@code -Dbench.sizes=1000,10000,100000}. */
  static java.util.List<Integer> sizes() {
    return java.util.Arrays.stream(System.getProperty("bench.sizes", "1000,10000,100000").split(",")).map(String::trim)
        .map(Integer::valueOf).toList();
  }

  /** Adds the topology settings given as {@code -Dbench.streams='key=value ...'} to {@code p}. */
  static void addStreamsSettings(java.util.Properties p) {
    for (String setting : System.getProperty("bench.streams", "").trim().split("\\s+")) {
      int eq = setting.indexOf('=');
      if (eq > 0) {
        p.setProperty(setting.substring(0, eq), setting.substring(eq + 1));
      }
    }
  }

  public static void main(String[] args) throws Exception {
    String which = args.length == 0 ? "all" : args[0];
    if (which.equals("all") || which.equals("topology")) {
      TopologyBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("prober")) {
      ProberBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("topology-latency")) {
      TopologyLatencyBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("edge")) {
      EdgeBenchmark.main(new String[0]);
      EdgeCatchUpBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("edge-intake")) {
      EdgeIntakeBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("policies")) {
      PolicyBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("last-known")) {
      LastKnownBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("edge-scale")) {
      EdgeScaleBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("propagation")) {
      PropagationBenchmark.main(new String[0]);
      // The same flips beside 100,000 record sets over 200,000 probed endpoints: size must not matter.
      System.setProperty("bench.background", System.getProperty("bench.background", "100000"));
      System.setProperty("bench.target", "external");
      PropagationBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("xds")) {
      XdsBenchmark.main(new String[0]);
      XdsPropagationBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("dnssec")) {
      DnssecBenchmark.main(new String[0]);
      // The edge at scale again, and a probe to a signed answer beside 100,000 record sets, every
      // zone signed and every query with DO (R-DNSSEC-1, R-DNSSEC-4).
      System.setProperty("bench.dnssec", "true");
      EdgeScaleBenchmark.main(new String[0]);
      System.setProperty("bench.background", System.getProperty("bench.background", "100000"));
      System.setProperty("bench.target", "external");
      PropagationBenchmark.main(new String[0]);
      System.setProperty("bench.dnssec", "false");
    }
    if (which.equals("all") || which.equals("pipeline")) {
      PipelineBenchmark.main(new String[0]);
    }
    if (which.equals("secured")) {
      // The topology and a fresh edge over SASL_SSL (SCRAM-SHA-512, TLS, the standard authorizer)
      // beside plaintext, in one run (docs/benchmarks.md, "On a secured cluster").
      System.setProperty("bench.secured", "true");
      TopologyBenchmark.main(new String[0]);
      EdgeCatchUpBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("healthctl")) {
      HealthctlBenchmark.main(new String[0]);
    }
    if (which.equals("all") || which.equals("audit")) {
      AuditBenchmark.main(new String[0]);
    }
    System.exit(0); // Kafka and Streams leave non-daemon threads behind in a benchmark JVM
  }
}
