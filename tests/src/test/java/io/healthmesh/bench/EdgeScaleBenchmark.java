package io.healthmesh.bench;

import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.edge.dnssec.SignedZoneFixture;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * The edge at 1k, 10k and 100k record sets (N WRR record sets over 2N health-checked external
 * endpoints, 10N health-state keys), run as its own process with the launcher's JVM settings:
 * catch-up, one flip (health-state record produced -> first DNS answer reflecting it), 100
 * flips/s of churn (in transactions every 100 ms, as the topology commits) under dnsperf load
 * against the same edge without churn, a running edge
 * absorbing an apply of N record sets and a burst of N health changes, follower CPU and RSS.
 * Needs dnsperf (Debian package).
 */
public final class EdgeScaleBenchmark {
  private static final List<Integer> SIZES = Benchmarks.sizes();
  private static final int FLIPS = Integer.getInteger("bench.flips", 100);
  private static final int CHURN_RATE = Integer.getInteger("bench.churn.rate", 100);
  private static final int CHURN_SECONDS = Integer.getInteger("bench.churn.seconds", 60);
  /** false: flips are not watched through DNS (no latency figures), to see what watching costs the load. */
  private static final boolean WATCH = Boolean.parseBoolean(System.getProperty("bench.churn.watch", "true"));
  private static final int WARMUP_SECONDS = Integer.getInteger("bench.warmup.seconds", 30);
  private static final int ROUND_SECONDS = Integer.getInteger("bench.round.seconds", 10);
  /** The heap flags `healthctl` gives an edge (see the launcher script). */
  private static final String EDGE_JVM = System.getProperty("bench.edge.jvm", "-Xmx768m -XX:+UseG1GC");
  private static final int APPLIED_TTL = 60;
  private static volatile long lastCompleted;
  private static final String CONTROL_TOPIC = "bench-control";
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  /** -Dbench.dnssec=true: the zone is signed and every query (watcher and dnsperf) sets DO (R-DNSSEC-1). */
  private static boolean dnssec;

  private EdgeScaleBenchmark() {}

  record Result(int n, double catchUpSeconds, long flipP50, long flipP99, long churnP50, long churnP99, int churnFlips,
      double baseQps, double churnQps, double controlQps, double cpuPerQueryRatio, double followerCpuShare, double applySeconds, double burstSeconds,
      long peakRssAtNMb, long peakRssAt2NMb) {}

  public static void main(String[] args) throws Exception {
    dnssec = Boolean.getBoolean("bench.dnssec");
    System.out.printf("%nedge at scale" + (dnssec ? ", the zone signed online and every query with DO" : "")
        + ": edge JVM %s, %d flips, churn %d flips/s for %d s in rounds of %d s alternating"
        + " with rounds without churn, dnsperf -c 4%n", EDGE_JVM, FLIPS, CHURN_RATE, CHURN_SECONDS, ROUND_SECONDS);
    List<Result> results = new ArrayList<>();
    for (int n : SIZES) {
      results.add(run(n));
    }
    System.out.printf("%n| N record sets | catch-up | one flip p50 / p99 | churn p50 / p99 (flips) | qps without / with churn"
        + " (ratio) | follower CPU | apply of N | burst of N health changes | peak RSS after churn / at the end |%n");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    for (Result r : results) {
      System.out.printf("| %,d | %.1f s | %d / %d ms | %d / %d ms (%,d) | %,.0f / %,.0f / %,.0f (%.2f, **%.2f**) | **%.2f** | %.1f %% of a core"
          + " | %.2f s | %.2f s | %,d / %,d MB |%n", r.n(), r.catchUpSeconds(), r.flipP50(), r.flipP99(), r.churnP50(),
          r.churnP99(), r.churnFlips(), r.baseQps(), r.churnQps(), r.controlQps(), r.churnQps() / r.baseQps(), r.churnQps() / r.controlQps(), r.cpuPerQueryRatio(),
          r.followerCpuShare() * 100,
          r.applySeconds(), r.burstSeconds(), r.peakRssAtNMb(), r.peakRssAt2NMb());
    }
    Result small = results.get(0);
    Result large = results.get(results.size() - 1);
    System.out.printf("growth %,d -> %,d record sets: one flip p99 x%.2f, churn p99 x%.2f%n", small.n(), large.n(),
        (double) large.flipP99() / Math.max(1, small.flipP99()), (double) large.churnP99() / Math.max(1, small.churnP99()));
  }

  /** One change then one snapshot, in process, against building the whole snapshot anew (the anchor). */
  private static double[] inProcess(int n) {
    io.healthmesh.edge.state.EdgeState state = new io.healthmesh.edge.state.EdgeState();
    state.zone("bench", ManagedZone.newBuilder().setName("bench").setDnsName("bench.example.")
        .setNetworks(List.of("127.0.0.0/8")).build());
    for (int i = 0; i < n; i++) {
      state.recordSet("bench/r" + i + ".bench.example./A", recordSet("r" + i + ".bench.example.", primary(i), standby(i)), i);
    }
    for (int i = 0; i < 2 * n; i++) {
      state.health(EntityKind.EXTERNAL_ENDPOINT, address(i), HealthStatus.HEALTHY);
    }
    long f0 = System.nanoTime();
    state.snapshot(true);
    double full = (System.nanoTime() - f0) / 1e6;
    Random random = new Random(3);
    int rounds = 20_000;
    for (int warm = 0; warm < 2; warm++) {
      long t0 = System.nanoTime();
      for (int k = 0; k < rounds; k++) {
        state.health(EntityKind.EXTERNAL_ENDPOINT, primary(random.nextInt(n)), k % 2 == 0 ? HealthStatus.UNHEALTHY
            : HealthStatus.HEALTHY);
        state.snapshot(true);
      }
      if (warm == 1) {
        return new double[] {full, (System.nanoTime() - t0) / 1e3 / rounds};
      }
    }
    throw new AssertionError();
  }

  private static Result run(int n) throws Exception {
    double[] cost = inProcess(n);
    System.out.printf("%nN = %,d in process: a full build takes %.0f ms; one health change then a snapshot %.1f µs"
        + " (ratio %.5f)%n", n, cost[0], cost[1], cost[1] / 1e3 / cost[0]);
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(4).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
          ProducerConfig.LINGER_MS_CONFIG, 0, ProducerConfig.BATCH_SIZE_CONFIG, 262_144);
      Map<String, Object> transactional = new java.util.HashMap<>(props);
      transactional.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "bench-churn-" + UUID.randomUUID());
      try (KafkaProducer<EntityKey, HealthState> health = new KafkaProducer<>(props,
          Topics.HEALTH_STATE.keySerde(client).serializer(), Topics.HEALTH_STATE.valueSerde(client).serializer());
          KafkaProducer<EntityKey, HealthState> transactions = new KafkaProducer<>(transactional,
              Topics.HEALTH_STATE.keySerde(client).serializer(), Topics.HEALTH_STATE.valueSerde(client).serializer())) {
        transactions.initTransactions();
        populate(kafka, client, health, n);
        try (var admin = kafka.admin()) {
          admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(CONTROL_TOPIC, 4, (short) 1))).all().get();
        }
        System.out.printf("%nN = %,d: %,d record sets, %,d health-state keys%n", n, n, 10 * n);
        Path dir = Files.createTempDirectory("bench-edge-scale");
        Edge edge = Edge.start(kafka.bootstrapServers(), registry.url(), dir);
        try {
          double catchUp = edge.awaitReady(Duration.ofMinutes(5));
          System.out.printf("catch-up: a fresh edge answered after %.1f s%n", catchUp);
          Flipper flipper = new Flipper(health, transactions, edge.port, n);
          flipper.await(0, true, Duration.ofSeconds(30));
          List<Long> flips = new ArrayList<>();
          for (int i = 0; i < FLIPS; i++) {
            // A lone change: the edge paces snapshots (dns.snapshot.min.interval.ms, 50 ms), so a
            // flip sent the moment the one before was served would be churn, measured below.
            Thread.sleep(100);
            flips.add(flipper.flipAndWait(new Random(i).nextInt(n)));
          }
          Collections.sort(flips);
          System.out.printf("one flip at a time: p50 %d ms, p99 %d ms, max %d ms%n", pct(flips, 0.5), pct(flips, 0.99),
              flips.get(flips.size() - 1));
          Path queries = queryFile(dir, n);
          // Unmeasured warm-up of both sides under load: without it, the JIT compiling the broker's
          // and the edge's churn paths takes a core during the first churn rounds.
          dnsperf(edge.port, queries, 5);
          flipper.churn(() -> dnsperfOrZero(edge.port, queries, WARMUP_SECONDS));
          // Rounds with and without churn alternate, so the machine's drift hits both alike.
          List<Double> base = new ArrayList<>();
          List<Double> loaded = new ArrayList<>();
          List<Long> churn = new ArrayList<>();
          List<Double> baseMicros = new ArrayList<>();
          List<Double> churnMicros = new ArrayList<>();
          List<Double> controls = new ArrayList<>();
          double baseCpu = 0;
          double churnCpu = 0;
          double churnSeconds = 0;
          for (int round = 0; round < Math.max(1, CHURN_SECONDS / ROUND_SECONDS); round++) {
            long steal0 = steal();
            double cpu0 = edge.metric("healthmesh_edge_follower_cpu_seconds_total");
            long[] procs0 = {ProcessStats.cpuNanos(), EdgeBenchmark.ticksOf(edge.process.pid())};
            base.add(dnsperf(edge.port, queries, ROUND_SECONDS));
            long baseCompleted = lastCompleted;
            double cpu1 = edge.metric("healthmesh_edge_follower_cpu_seconds_total");
            long[] procs1 = {ProcessStats.cpuNanos(), EdgeBenchmark.ticksOf(edge.process.pid())};
            long t0 = System.nanoTime();
            churn.addAll(flipper.churn(() -> dnsperfOrZero(edge.port, queries, ROUND_SECONDS)));
            churnSeconds += (System.nanoTime() - t0) / 1e9;
            long[] procs2 = {ProcessStats.cpuNanos(), EdgeBenchmark.ticksOf(edge.process.pid())};
            loaded.add(flipper.lastQps);
            // 100 ticks a second: microseconds of edge CPU per answered query.
            baseMicros.add((procs1[1] - procs0[1]) * 10_000.0 / baseCompleted);
            churnMicros.add((procs2[1] - procs1[1]) * 10_000.0 / lastCompleted);
            flipper.churn(() -> dnsperfOrZero(edge.port, queries, ROUND_SECONDS), true);
            controls.add(flipper.lastQps);
            System.out.printf("  round %d: control %,.0f q/s; the host took %.0f %% of the machine's CPU (steal) in this"
                + " round%n", round, flipper.lastQps, (steal() - steal0) / (3.0 * ROUND_SECONDS * 100 * 2) * 100);
            baseCpu += cpu1 - cpu0;
            churnCpu += edge.metric("healthmesh_edge_follower_cpu_seconds_total") - cpu1;
            System.out.printf("  round %d: %,.0f q/s without churn, %,.0f with; CPU of the edge %.0f %% / %.0f %%,"
                + " of this JVM (broker, producer, watcher) %.0f %% / %.0f %% of a core%n", round, base.get(round),
                loaded.get(round), (procs1[1] - procs0[1]) / (ROUND_SECONDS * 100.0) * 100,
                (procs2[1] - procs1[1]) / (ROUND_SECONDS * 100.0) * 100, (procs1[0] - procs0[0]) / (ROUND_SECONDS * 1e9) * 100,
                (procs2[0] - procs1[0]) / (ROUND_SECONDS * 1e9) * 100);
          }
          Collections.sort(churn);
          double baseQps = median(base);
          double churnQps = median(loaded);
          double cpuShare = churnCpu / churnSeconds;
          double cpuRatio = median(churnMicros) / median(baseMicros);
          double controlQps = median(controls);
          System.out.printf("control rounds (the same transactions to a topic the edge does not follow): median %,.0f q/s"
              + " %s; with churn / control: %.2f%n", controlQps, controls, churnQps / controlQps);
          System.out.printf("edge CPU per answered query: median %.2f µs with churn %s, %.2f µs without %s: ratio %.2f%n",
              median(churnMicros), churnMicros, median(baseMicros), baseMicros, cpuRatio);
          System.out.printf("churn: %,d flips, p50 %d ms, p99 %d ms; dnsperf median %,.0f q/s with churn %s, %,.0f without"
              + " %s: ratio %.2f; follower CPU %.1f %% of a core with churn, %.1f %% without%n", churn.size(),
              pct(churn, 0.5), pct(churn, 0.99), churnQps, loaded, baseQps, base, churnQps / baseQps, cpuShare * 100,
              baseCpu / (ROUND_SECONDS * base.size()) * 100);
          long[] rssAtN = edge.rss();
          double apply = applyRecordSets(kafka, client, edge, n);
          System.out.printf("apply: a new version of all %,d record sets in one transaction served %.2f s after the"
              + " commit%n", n, apply);
          double burst = flipper.burst(edge);
          System.out.printf("burst: %,d health changes served %.2f s after the last was acknowledged%n", n, burst);
          long[] rss = edge.rss();
          System.out.printf("edge RSS after churn %,d MB (peak so far %,d MB); after the apply and the burst %,d MB"
              + " (peak %,d MB)%n", rssAtN[0] >> 20, rssAtN[1] >> 20, rss[0] >> 20, rss[1] >> 20);
          if (dnssec) {
            System.out.printf("signature cache: %,.0f RRsets, about %,.1f MB; %,.0f signatures made, %,.0f lookups hit,"
                + " %,.0f missed%n", edge.metric("healthmesh_edge_dnssec_cache_entries"),
                edge.metric("healthmesh_edge_dnssec_cache_bytes") / 1e6, edge.metric("healthmesh_edge_dnssec_signatures_total"),
                edge.metric("healthmesh_edge_dnssec_cache_lookups_total", "result=\"hit\""),
                edge.metric("healthmesh_edge_dnssec_cache_lookups_total", "result=\"miss\""));
          }
          return new Result(n, catchUp, pct(flips, 0.5), pct(flips, 0.99), pct(churn, 0.5), pct(churn, 0.99),
              churn.size(), baseQps, churnQps, controlQps, cpuRatio, cpuShare, apply, burst, rssAtN[1] >> 20, rss[1] >> 20);
        } finally {
          edge.close();
        }
      }
    }
  }

  /** Ticks the hypervisor gave to others (the steal column of /proc/stat): a shared machine's noise. */
  private static long steal() {
    try {
      String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      return cpu.length > 8 ? Long.parseLong(cpu[8]) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int m = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(m) : (sorted.get(m - 1) + sorted.get(m)) / 2;
  }

  private static long pct(List<Long> sorted, double p) {
    return sorted.isEmpty() ? -1 : sorted.get(Math.max(0, (int) Math.ceil(sorted.size() * p) - 1));
  }

  static void populate(EmbeddedKafka kafka, SchemaRegistryClient client, KafkaProducer<EntityKey, HealthState> health,
      int n) throws Exception {
    Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 262_144);
    try (KafkaProducer<String, ManagedZone> zones = new KafkaProducer<>(props,
        Topics.MANAGED_ZONES.keySerde(client).serializer(), Topics.MANAGED_ZONES.valueSerde(client).serializer());
        KafkaProducer<String, ResourceRecordSet> sets = new KafkaProducer<>(props,
            Topics.RESOURCE_RECORD_SETS.keySerde(client).serializer(),
            Topics.RESOURCE_RECORD_SETS.valueSerde(client).serializer())) {
      zones.send(new ProducerRecord<>(Topics.MANAGED_ZONES.name(), "bench", ManagedZone.newBuilder().setName("bench")
          .setDnsName("bench.example.").setNetworks(List.of("127.0.0.0/8")).setDnssecEnabled(dnssec)
          .setDnssecAnySubset(dnssec).build()));
      for (int i = 0; i < n; i++) {
        ResourceRecordSet rrs = recordSet("r" + i + ".bench.example.", primary(i), standby(i));
        sets.send(new ProducerRecord<>(Topics.RESOURCE_RECORD_SETS.name(), "bench/r" + i + ".bench.example./A", rrs));
      }
    }
    for (int i = 0; i < 10 * n; i++) {
      // 2N endpoints the record sets check, HEALTHY; the rest are endpoints no record set checks.
      String name = i < n ? primary(i) : i < 2 * n ? standby(i - n) : "198.18." + (i >> 8 & 255) + "." + (i & 255) + "-" + i;
      health.send(new ProducerRecord<>(Topics.HEALTH_STATE.name(), new EntityKey(EntityKind.EXTERNAL_ENDPOINT, name),
          HealthState.newBuilder().setStatus(HealthStatus.HEALTHY).setSince(java.time.Instant.now()).setVersion(1).build()));
    }
    health.flush();
  }

  /** Weight 100 on the primary, 0 on the standby: the answer is the primary while it is healthy, else the standby. */
  private static ResourceRecordSet recordSet(String name, String primary, String standby) {
    return ResourceRecordSet.newBuilder().setZone("bench").setName(name).setType("A").setTtl(30)
        .setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            item(primary, 100), item(standby, 0))).build()).build()).build();
  }

  private static WrrItem item(String address, int weight) {
    return WrrItem.newBuilder().setWeight(weight).setRrdatas(List.of(address))
        .setHealthCheckedTargets(HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(address)).build()).build();
  }

  static String primary(int i) {
    return address(2 * i);
  }

  static String standby(int i) {
    return address(2 * i + 1);
  }

  private static String address(int i) {
    return "10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255);
  }

  private static Path queryFile(Path dir, int n) throws IOException {
    Random random = new Random(7);
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 10_000; i++) {
      lines.append('r').append(random.nextInt(n)).append(".bench.example. A\n");
    }
    return Files.writeString(dir.resolve("queries.txt"), lines);
  }

  private static double dnsperf(int port, Path queries, int seconds) throws Exception {
    List<String> command = new ArrayList<>(List.of("dnsperf", "-s", "127.0.0.1", "-p", String.valueOf(port), "-d",
        queries.toString(), "-l", String.valueOf(seconds), "-c", "4"));
    if (dnssec) {
      command.add("-D");
    }
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    lastCompleted = (long) EdgeBenchmark.number(out, "Queries completed:\\s+([0-9]+)");
    return EdgeBenchmark.number(out, "Queries per second:\\s+([0-9.]+)");
  }

  private static double dnsperfOrZero(int port, Path queries, int seconds) {
    try {
      return dnsperf(port, queries, seconds);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A new version (another TTL) of all N record sets in one transaction, as {@code healthctl apply}
   * writes them; seconds from the commit until the edge serves every one.
   */
  private static double applyRecordSets(EmbeddedKafka kafka, SchemaRegistryClient client, Edge edge, int n) throws Exception {
    Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, "bench-apply-" + UUID.randomUUID(), ProducerConfig.LINGER_MS_CONFIG, 20,
        ProducerConfig.BATCH_SIZE_CONFIG, 262_144);
    try (KafkaProducer<String, ResourceRecordSet> sets = new KafkaProducer<>(props,
        Topics.RESOURCE_RECORD_SETS.keySerde(client).serializer(), Topics.RESOURCE_RECORD_SETS.valueSerde(client).serializer())) {
      sets.initTransactions();
      sets.beginTransaction();
      for (int i = 0; i < n; i++) {
        ResourceRecordSet rrs = recordSet("r" + i + ".bench.example.", primary(i), standby(i));
        rrs.setTtl(APPLIED_TTL);
        sets.send(new ProducerRecord<>(Topics.RESOURCE_RECORD_SETS.name(), "bench/r" + i + ".bench.example./A", rrs));
      }
      sets.commitTransaction();
      long t0 = System.nanoTime();
      Thread.sleep(50); // the commit marker reaches the edge's next fetch
      while (edge.metric("healthmesh_edge_follower_lag_records") > 0 || Flipper.ttl(edge.port, n - 1) != APPLIED_TTL) {
        if (System.nanoTime() - t0 > Duration.ofMinutes(10).toNanos()) {
          throw new IllegalStateException("the edge did not serve the applied record sets within 10 minutes");
        }
        Thread.sleep(50);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      Random random = new Random(5);
      for (int k = 0; k < 100; k++) {
        int i = random.nextInt(n);
        if (Flipper.ttl(edge.port, i) != APPLIED_TTL) {
          throw new IllegalStateException("r" + i + " still has its old TTL once the edge caught up");
        }
      }
      return seconds;
    }
  }

  /** Flips the primary endpoint of record sets and watches DNS until the answer follows. */
  static final class Flipper {
    private final KafkaProducer<EntityKey, HealthState> health;
    private final KafkaProducer<EntityKey, HealthState> transactions;
    private final int port;
    private final int n;
    private final boolean[] down;
    private final Set<Integer> outstanding = ConcurrentHashMap.newKeySet();
    private volatile double lastQps;
    private long version = 2;

    Flipper(KafkaProducer<EntityKey, HealthState> health, KafkaProducer<EntityKey, HealthState> transactions, int port,
        int n) {
      this.health = health;
      this.transactions = transactions;
      this.port = port;
      this.n = n;
      this.down = new boolean[n];
    }

    private void send(int i, boolean up) {
      send(health, i, up);
    }

    private void send(KafkaProducer<EntityKey, HealthState> producer, int i, boolean up) {
      down[i] = !up;
      producer.send(new ProducerRecord<>(Topics.HEALTH_STATE.name(), new EntityKey(EntityKind.EXTERNAL_ENDPOINT, primary(i)),
          state(up)));
    }

    private HealthState state(boolean up) {
      return HealthState.newBuilder().setStatus(up ? HealthStatus.HEALTHY : HealthStatus.UNHEALTHY)
          .setSince(java.time.Instant.now()).setVersion(version++).build();
    }

    long flipAndWait(int i) throws Exception {
      long t0 = System.nanoTime();
      send(i, down[i]);
      await(i, !down[i], Duration.ofSeconds(30));
      return (System.nanoTime() - t0) / 1_000_000;
    }

    void await(int i, boolean up, Duration timeout) throws Exception {
      String wanted = up ? primary(i) : standby(i);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!answer(port, "r" + i + ".bench.example.").equals(wanted)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("r" + i + " did not answer " + wanted + " within " + timeout);
        }
        Thread.sleep(1);
      }
    }

    /** Flips at the churn rate while {@code load} runs; the latency of every flip that DNS showed. */
    List<Long> churn(java.util.function.DoubleSupplier load) throws Exception {
      return churn(load, false);
    }

    /**
     * @param control the same transactions to a topic the edge does not follow: the broker's and
     *     producer's share of the load without any work for the edge
     */
    List<Long> churn(java.util.function.DoubleSupplier load, boolean control) throws Exception {
      AtomicBoolean running = new AtomicBoolean(true);
      ConcurrentLinkedQueue<long[]> pending = new ConcurrentLinkedQueue<>();
      List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
      Thread watcher = new Thread(() -> watch(running, pending, latencies), "bench-churn-watcher");
      if (WATCH && !control) {
        watcher.start();
      }
      Thread loader = new Thread(() -> lastQps = load.getAsDouble(), "bench-dnsperf");
      loader.start();
      Random random = new Random(11);
      long start = System.nanoTime();
      // As the topology writes health-state: one transaction per 100 ms commit. A flip is timed
      // from its commit, the first moment a read_committed edge can see it.
      int perCommit = Math.max(1, CHURN_RATE / 10);
      List<long[]> batch = new ArrayList<>();
      for (long k = 0; loader.isAlive(); k++) {
        long wait = start + k * 100_000_000L - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        transactions.beginTransaction();
        for (int f = 0; f < perCommit; f++) {
          int i = random.nextInt(n);
          if (control) {
            transactions.send(new ProducerRecord<>(CONTROL_TOPIC, new EntityKey(EntityKind.EXTERNAL_ENDPOINT, primary(i)),
                state(!down[i])));
            continue;
          }
          if (WATCH && !outstanding.add(i)) {
            continue;
          }
          send(transactions, i, down[i]);
          batch.add(new long[] {i, down[i] ? 0 : 1, 0});
        }
        transactions.commitTransaction();
        long committed = System.nanoTime();
        for (long[] flip : batch) {
          flip[2] = committed;
          pending.add(flip);
        }
        batch.clear();
      }
      Thread.sleep(2_000); // the last flips' answers
      running.set(false);
      if (WATCH && !control) {
        watcher.join();
      }
      List<Long> sorted = new ArrayList<>(latencies);
      Collections.sort(sorted);
      return sorted;
    }

    private void watch(AtomicBoolean running, ConcurrentLinkedQueue<long[]> pending, List<Long> latencies) {
      List<long[]> open = new ArrayList<>();
      try (var resolver = new Querier(port)) {
        while (running.get()) {
          for (long[] p; (p = pending.poll()) != null; ) {
            open.add(p);
          }
          for (var it = open.iterator(); it.hasNext(); ) {
            long[] p = it.next();
            int i = (int) p[0];
            String wanted = p[1] == 1 ? primary(i) : standby(i);
            if (resolver.answer("r" + i + ".bench.example.").equals(wanted)) {
              latencies.add((System.nanoTime() - p[2]) / 1_000_000);
              outstanding.remove(i);
              it.remove();
            }
          }
          // A light watcher: each open flip is asked about every 5 ms (the resolution of the
          // figures), so the watcher itself takes little of the cores that dnsperf measures.
          Thread.sleep(5);
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    /** Takes the primary of every record set down at once; seconds from the last acknowledgement to all served. */
    double burst(Edge edge) throws Exception {
      for (int i = 0; i < n; i++) {
        if (!down[i]) {
          send(i, false);
        }
      }
      health.flush();
      long t0 = System.nanoTime();
      int last = n - 1;
      while (edge.metric("healthmesh_edge_follower_lag_records") > 0 || !answer(port, "r" + last + ".bench.example.")
          .equals(standby(last))) {
        if (System.nanoTime() - t0 > Duration.ofMinutes(10).toNanos()) {
          throw new IllegalStateException("the burst was not served within 10 minutes");
        }
        Thread.sleep(50);
      }
      return (System.nanoTime() - t0) / 1e9;
    }

    static long ttl(int port, int i) throws IOException {
      try (Querier q = new Querier(port)) {
        List<Record> answer = q.ask("r" + i + ".bench.example.");
        return answer.isEmpty() ? -1 : answer.get(0).getTTL();
      }
    }

    static String answer(int port, String name) throws IOException {
      try (Querier q = new Querier(port)) {
        return q.answer(name);
      }
    }
  }

  /** One resolver, reused for many queries. */
  static final class Querier implements AutoCloseable {
    private final SimpleResolver resolver;

    Querier(int port) throws IOException {
      resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", port));
      resolver.setTimeout(Duration.ofSeconds(2));
      if (dnssec) {
        resolver.setEDNS(0, 1232, org.xbill.DNS.ExtendedFlags.DO);
      }
    }

    String answer(String name) throws IOException {
      List<Record> answer = ask(name);
      return answer.isEmpty() ? "" : answer.get(0).rdataToString();
    }

    List<Record> ask(String name) throws IOException {
      return resolver.send(Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN)))
          .getSection(Section.ANSWER).stream().filter(r -> r.getType() == Type.A).toList(); // RRSIGs follow with DO
    }

    @Override
    public void close() {}
  }

  /** An edge in its own JVM, as `healthctl edge` runs it. */
  static final class Edge implements AutoCloseable {
    final int port;
    final int metricsPort;
    final Process process;
    final long started = System.nanoTime();

    private Edge(int port, int metricsPort, Process process) {
      this.port = port;
      this.metricsPort = metricsPort;
      this.process = process;
    }

    static Edge start(String bootstrap, String registry, Path dir) throws Exception {
      int port = EdgeBenchmark.freePort();
      int metricsPort = EdgeBenchmark.freePort();
      List<String> command = new ArrayList<>(List.of("java"));
      command.addAll(Arrays.asList(EDGE_JVM.trim().split("\\s+")));
      command.addAll(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
          "io.healthmesh.edge.EdgeMain", "edge.region=us-east1", "dns.port=" + port, "metrics.port=" + metricsPort,
          "bootstrap.servers=" + bootstrap, "schema.registry.url=" + registry));
      if (dnssec) {
        SignedZoneFixture.keys(dir.resolve("keys"), "bench.example.");
        command.add("dns.dnssec.keys.dir=" + dir.resolve("keys"));
      }
      Process process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(dir.resolve("edge.log").toFile()).start();
      Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "stop-edge")); // as TopologyProcess
      return new Edge(port, metricsPort, process);
    }

    /** Until the edge's metrics server answers {@code /health/live}. */
    void awaitHealthy(Duration timeout) throws Exception {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        try {
          if (HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/health/live")).build(),
              HttpResponse.BodyHandlers.ofString()).statusCode() == 200) {
            return;
          }
        } catch (IOException e) {
          // not listening yet
        }
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException("edge not up (alive: " + process.isAlive() + ")");
        }
        Thread.sleep(50);
      }
    }

    /** Seconds from the process start to the first answer from a full snapshot. */
    double awaitReady(Duration timeout) throws Exception {
      long deadline = started + timeout.toNanos();
      while (true) {
        try {
          HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort
              + "/health/ready")).build(), HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() == 200 && !Flipper.answer(port, "r0.bench.example.").isEmpty()) {
            return (System.nanoTime() - started) / 1e9;
          }
        } catch (IOException e) {
          // not listening yet
        }
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException("edge not ready (alive: " + process.isAlive() + ")");
        }
        Thread.sleep(20);
      }
    }

    /** The sum of every series of a metric in the edge's Prometheus text. */
    double metric(String name) throws Exception {
      return metric(name, "");
    }

    /** The edge's Prometheus text. */
    String metrics() throws Exception {
      return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The sum of the series of {@code name} whose labels contain {@code label} ({@code result="hit"}). */
    double metric(String name, String label) throws Exception {
      String text = metrics();
      double sum = 0;
      for (String line : text.split("\n")) {
        if ((line.startsWith(name + "{") || line.startsWith(name + " ")) && line.contains(label)) {
          sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      return sum;
    }

    /** VmRSS and VmHWM of the edge process. */
    long[] rss() throws IOException {
      long[] out = new long[2];
      for (String line : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          out[0] = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
        } else if (line.startsWith("VmHWM:")) {
          out[1] = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
        }
      }
      return out;
    }

    @Override
    public void close() throws InterruptedException {
      process.destroy();
      process.waitFor();
    }
  }
}
