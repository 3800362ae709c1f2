package io.healthmesh.bench;

import io.healthmesh.config.AlternativeNameServerConfig;
import io.healthmesh.config.LocalRecordSet;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.ResponsePolicy;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ResponsePolicyRuleBehavior;
import io.healthmesh.config.ResponsePolicyRuleLocalData;
import io.healthmesh.config.ServerPolicy;
import io.healthmesh.config.TargetNameServer;
import io.healthmesh.config.ZoneVisibility;
import io.healthmesh.edge.answer.Forwarding;
import io.healthmesh.edge.answer.PolicyListener;
import io.healthmesh.edge.answer.Responder;
import io.healthmesh.edge.forward.ClientRateLimit;
import io.healthmesh.edge.forward.ForwardSettings;
import io.healthmesh.edge.forward.Forwarder;
import io.healthmesh.edge.policy.RuleTable;
import io.healthmesh.edge.routing.Regions;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.routing.SubnetRegions;
import io.healthmesh.edge.server.EdgeServer;
import io.healthmesh.edge.server.TcpLimits;
import io.healthmesh.edge.servers.NameServerProcess;
import io.healthmesh.edge.servers.Nsd;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.edge.state.Snapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * Response and server policies at size (R-RP-1, R-SP-1), all on loopback:
 * <ol>
 *   <li>100,000 response-policy rules taken by an edge's state, then one rule changed: the time to
 *       take them and build a snapshot, the heap they hold, and a rule lookup's cost;</li>
 *   <li>a forwarded query's round trip against NSD's own, one query at a time, in alternating
 *       rounds (target: the edge adds at most 0.2 ms at p50);</li>
 *   <li>dnsperf queries per second: forwarded against NSD alone, and authoritative answers with a
 *       100,000-rule policy covering the client against the same edge answering no policy.</li>
 * </ol>
 * Needs the Debian packages nsd and dnsperf.
 */
public final class PolicyBenchmark {
  private static final int RULES = Integer.getInteger("bench.rules", 100_000);
  private static final int QUERIES = Integer.getInteger("bench.forward.queries", 20_000);
  private static final int ROUNDS = Integer.getInteger("bench.dns.rounds", 5);
  private static final String UPSTREAM = """
      $ORIGIN upstream.bench.
      $TTL 300
      @ IN SOA ns admin 1 3600 600 86400 300
      @ IN NS ns
      ns IN A 127.0.0.1
      www IN A 192.0.2.80
      """;

  private PolicyBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("healthmesh-policy-bench");
    System.out.printf("%nPolicy benchmark: %,d response-policy rules; forwarding to NSD on loopback%n", RULES);
    EdgeState quiet = zone(new EdgeState());
    EdgeState policed = zone(new EdgeState());
    rules(policed);
    try (NameServerProcess nsd = Nsd.start(dir.resolve("nsd"), Map.of("upstream.bench", UPSTREAM))) {
      policed.serverPolicy("bench", ServerPolicy.newBuilder().setName("bench").setNetworks(List.of("127.0.0.0/8"))
          .setAlternativeNameServerConfig(AlternativeNameServerConfig.newBuilder().setTargetNameServers(List.of(
              TargetNameServer.newBuilder().setIpv4Address("127.0.0.1").setPort(nsd.port()).build())).build()).build(), 1);
      Snapshot policedSnapshot = policed.snapshot(true);
      Snapshot quietSnapshot = quiet.snapshot(true);
      try (Forwarder forwarder = new Forwarder(ForwardSettings.DEFAULTS, new SimpleMeterRegistry());
          EdgeServer withPolicies = edge(policedSnapshot, forwarder);
          EdgeServer without = edge(quietSnapshot, forwarder)) {
        latency(nsd, withPolicies);
        throughput(dir, nsd, withPolicies, without);
      }
    }
  }

  private static EdgeState zone(EdgeState state) {
    state.zone("bench", ManagedZone.newBuilder().setName("bench").setDnsName("bench.example.")
        .setVisibility(ZoneVisibility.PUBLIC).build());
    state.recordSet("bench/static.bench.example./A", ResourceRecordSet.newBuilder().setZone("bench")
        .setName("static.bench.example.").setType("A").setTtl(300).setRrdatas(List.of("10.0.0.5")).build(), 1);
    return state;
  }

  /** Takes RULES rules (half local data, four in ten wildcard blocks, one in ten bypasses), then changes one. */
  private static void rules(EdgeState state) {
    System.gc();
    long heapBefore = usedHeap();
    long started = System.nanoTime();
    state.responsePolicy("bench", ResponsePolicy.newBuilder().setResponsePolicyName("bench")
        .setNetworks(List.of("127.0.0.0/8")).build(), 0);
    for (int i = 0; i < RULES; i++) {
      state.responsePolicyRule("bench/r" + i, rule(i, "10.9." + (i >> 8 & 0xff) + "." + (i & 0xff)), i);
    }
    long taken = System.nanoTime();
    Snapshot snapshot = state.snapshot(true);
    long built = System.nanoTime();
    System.gc();
    long heap = usedHeap() - heapBefore;
    System.out.printf("%,d rules: taken in %,d ms, first snapshot %,d ms, %,d bytes of heap (%,d a rule)%n", RULES,
        (taken - started) / 1_000_000, (built - taken) / 1_000_000, heap, heap / RULES);
    long[] changes = new long[2000];
    for (int k = 0; k < changes.length; k++) {
      long t0 = System.nanoTime();
      int i = ThreadLocalRandom.current().nextInt(RULES);
      state.responsePolicyRule("bench/r" + i, rule(i, "10.8.0." + (k & 0xff)), RULES + k);
      snapshot = state.snapshot(true);
      changes[k] = System.nanoTime() - t0;
    }
    Arrays.sort(changes);
    System.out.printf("one rule changed, taken and served (%,d changes): p50 %,d µs, p99 %,d µs%n", changes.length,
        changes[changes.length / 2] / 1000, changes[changes.length * 99 / 100] / 1000);
    RuleTable table = snapshot.policies().responsePolicies().get(0).rules();
    Name[] names = new Name[1024];
    for (int i = 0; i < names.length; i++) {
      names[i] = Name.fromConstantString(i % 2 == 0 ? "host" + i + ".d" + i + ".rules.example." // exact or wildcard
          : "miss" + i + ".a.b.c.example.");
    }
    int hits = 0;
    long t0 = System.nanoTime();
    for (int i = 0; i < 2_000_000; i++) {
      hits += table.match(names[i & 1023]) == null ? 0 : 1;
    }
    System.out.printf("rule lookup: %.0f ns (half matching, half missing after walking 5 labels; %d hits)%n",
        (System.nanoTime() - t0) / 2e6, hits);
  }

  private static ResponsePolicyRule rule(int i, String address) {
    ResponsePolicyRule.Builder b = ResponsePolicyRule.newBuilder().setResponsePolicy("bench").setRuleName("r" + i);
    if (i % 10 < 5) {
      String name = "host" + i + ".d" + i + ".rules.example.";
      return b.setDnsName(name).setLocalData(ResponsePolicyRuleLocalData.newBuilder().setLocalDatas(List.of(
          LocalRecordSet.newBuilder().setName(name).setType("A").setRrdatas(List.of(address)).build())).build()).build();
    }
    if (i % 10 < 9) {
      return b.setDnsName("*.d" + i + ".rules.example.").setBehavior(ResponsePolicyRuleBehavior.nxdomain).build();
    }
    return b.setDnsName("pass" + i + ".rules.example.").setBehavior(ResponsePolicyRuleBehavior.bypassResponsePolicy)
        .build();
  }

  private static EdgeServer edge(Snapshot snapshot, Forwarder forwarder) throws Exception {
    Responder responder = new Responder(() -> snapshot, new RoutingEngine(Regions.builtIn()), "us-east1",
        SubnetRegions.NONE, Rcode.SERVFAIL, ThreadLocalRandom::current, Responder.DecisionListener.NONE,
        new Forwarding(forwarder, new ClientRateLimit(10_000_000, 10_000_000, System::nanoTime)), PolicyListener.NONE);
    return EdgeServer.start(new EdgeServer.Listen("127.0.0.1", 0, 2, true, TcpLimits.defaults()), responder,
        new SimpleMeterRegistry());
  }

  /** One query at a time, so each round trip is a latency, not a queue. */
  private static void latency(NameServerProcess nsd, EdgeServer edge) throws Exception {
    byte[] query = Message.newQuery(Record.newRecord(Name.fromConstantString("www.upstream.bench."), Type.A, DClass.IN))
        .toWire();
    roundTrips(nsd.port(), query, 5_000); // warm-up, JIT included
    roundTrips(edge.port(), query, 5_000);
    List<long[]> direct = new ArrayList<>();
    List<long[]> forwarded = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      direct.add(roundTrips(nsd.port(), query, QUERIES));
      forwarded.add(roundTrips(edge.port(), query, QUERIES));
      System.out.printf("round %d: NSD alone p50 %.1f µs p99 %.1f µs; through the edge p50 %.1f µs p99 %.1f µs%n",
          round + 1, pct(direct.get(round), 50), pct(direct.get(round), 99), pct(forwarded.get(round), 50),
          pct(forwarded.get(round), 99));
    }
    double[] added = new double[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
      added[i] = pct(forwarded.get(i), 50) - pct(direct.get(i), 50);
    }
    Arrays.sort(added);
    System.out.printf("forwarded query: the edge adds %.1f µs at p50 (median of %d rounds; target <= 200 µs)%n",
        EdgeBenchmark.median(added), ROUNDS);
  }

  private static long[] roundTrips(int port, byte[] query, int count) throws Exception {
    long[] took = new long[count];
    try (DatagramChannel channel = DatagramChannel.open()) {
      channel.connect(new InetSocketAddress("127.0.0.1", port));
      ByteBuffer in = ByteBuffer.allocateDirect(4096);
      for (int i = 0; i < count; i++) {
        query[0] = (byte) (i >>> 8);
        query[1] = (byte) i;
        long t0 = System.nanoTime();
        channel.write(ByteBuffer.wrap(query));
        in.clear();
        channel.read(in);
        took[i] = System.nanoTime() - t0;
        if (in.position() < 12 || in.get(0) != query[0] || in.get(1) != query[1] || (in.get(3) & 0x0F) != 0) {
          throw new IllegalStateException("query " + i + " to port " + port + " was not answered NOERROR");
        }
      }
    }
    Arrays.sort(took);
    return took;
  }

  private static double pct(long[] sorted, int p) {
    return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)] / 1000.0;
  }

  private static void throughput(Path dir, NameServerProcess nsd, EdgeServer withPolicies, EdgeServer without)
      throws Exception {
    Path forwarded = Files.writeString(dir.resolve("forwarded.txt"), "www.upstream.bench A\n");
    Path authoritative = Files.writeString(dir.resolve("static.txt"), "static.bench.example A\n");
    long me = ProcessHandle.current().pid();
    List<EdgeBenchmark.Run> nsdRuns = new ArrayList<>();
    List<EdgeBenchmark.Run> forwardRuns = new ArrayList<>();
    List<EdgeBenchmark.Run> quietRuns = new ArrayList<>();
    List<EdgeBenchmark.Run> policedRuns = new ArrayList<>();
    for (int round = 1; round <= ROUNDS; round++) {
      System.out.printf("dnsperf round %d of %d%n", round, ROUNDS);
      nsdRuns.add(EdgeBenchmark.perf("NSD alone, www.upstream.bench A", nsd.port(), forwarded, nsd.pid()));
      forwardRuns.add(EdgeBenchmark.perf("edge forwarding to NSD", withPolicies.port(), forwarded, me));
      quietRuns.add(EdgeBenchmark.perf("edge static A, no policy", without.port(), authoritative, me));
      policedRuns.add(EdgeBenchmark.perf("edge static A, " + RULES + "-rule policy on the client", withPolicies.port(),
          authoritative, me));
    }
    System.out.printf("ratio forwarded through the edge / NSD alone: %.2f queries/s%n",
        EdgeBenchmark.median(forwardRuns) / EdgeBenchmark.median(nsdRuns));
    System.out.printf("ratio static A with a %,d-rule policy covering the client / without: %.2f queries/s,"
        + " %.1f against %.1f µs edge CPU a query%n", RULES, EdgeBenchmark.median(policedRuns)
        / EdgeBenchmark.median(quietRuns), EdgeBenchmark.medianCpu(policedRuns), EdgeBenchmark.medianCpu(quietRuns));
  }

  private static long usedHeap() {
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }
}
