package io.healthmesh.bench;

import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.config.ZoneVisibility;
import io.healthmesh.edge.answer.PolicyListener;
import io.healthmesh.edge.answer.Responder;
import io.healthmesh.edge.dnssec.OnlineSigning;
import io.healthmesh.edge.dnssec.SignedZoneFixture;
import io.healthmesh.edge.dnssec.SigningSettings;
import io.healthmesh.edge.dnssec.ZoneKey;
import io.healthmesh.edge.routing.Regions;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.routing.SubnetRegions;
import io.healthmesh.edge.server.EdgeServer;
import io.healthmesh.edge.server.TcpLimits;
import io.healthmesh.edge.servers.NameServerProcess;
import io.healthmesh.edge.servers.Nsd;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.observability.MetricsServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.xbill.DNS.Rcode;

/**
 * Signed answers (dnsperf -D, DO set) from the edge against NSD serving the same zone signed ahead
 * of time by ldns-signzone with the same keys, in alternating rounds of one run; CPU per query of
 * each server. Unsigned answers beside them: the same edge's zone unsigned, against its signed
 * zone asked without DO, so the cost of being able to sign shows as a ratio too. Needs the Debian
 * packages dnsperf, nsd and ldnsutils.
 */
public final class DnssecBenchmark {
  private static final int NAMES = Integer.getInteger("bench.dnssec.names", 10_000);

  private DnssecBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("healthmesh-dnssec-bench");
    Path keys = Files.createDirectories(dir.resolve("keys"));
    List<ZoneKey> made = SignedZoneFixture.keys(keys, "signed.example.");
    StringBuilder zone = new StringBuilder("$TTL 300\n$ORIGIN signed.example.\n@ SOA ns1 hostmaster 1 3600 600 86400 300\n"
        + "@ NS ns1\nns1 A 127.0.0.1\n");
    StringBuilder queries = new StringBuilder();
    for (int i = 0; i < NAMES; i++) {
      zone.append("n").append(i).append(" A ").append(address(i)).append('\n');
      queries.append("n").append(i).append(".signed.example A\n");
    }
    Path zoneFile = Files.writeString(dir.resolve("signed.example.zone"), zone);
    List<String> sign = new ArrayList<>(List.of("ldns-signzone", "-f", dir.resolve("signed.example.zone.signed").toString(),
        zoneFile.toString()));
    made.forEach(k -> sign.add(keys.resolve(k.file()).toString()));
    Process ldns = new ProcessBuilder(sign).redirectErrorStream(true).start();
    String ldnsOut = new String(ldns.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (ldns.waitFor() != 0) {
      throw new IllegalStateException("ldns-signzone: " + ldnsOut);
    }
    Path signedQueries = Files.writeString(dir.resolve("signed.txt"), queries);
    Path unsignedQueries = Files.writeString(dir.resolve("unsigned.txt"), queries.toString()
        .replace(".signed.example", ".plain.example"));
    Path wrrQueries = Files.writeString(dir.resolve("wrr.txt"), "wrr.signed.example A\n");
    System.out.printf("%nDNSSEC benchmark: %,d names; NSD serves the zone signed by ldns-signzone, the edge signs online"
        + " with the same ECDSA P-256 keys; dnsperf -c 4 (-D: DO set) on loopback, %d alternating rounds of %d s%n",
        NAMES, Integer.getInteger("bench.dns.rounds", 5), Integer.getInteger("bench.dns.seconds", 6));
    NameServerProcess nsd = Nsd.start(dir.resolve("nsd"), Map.of("signed.example",
        Files.readString(dir.resolve("signed.example.zone.signed"))));
    PrometheusMeterRegistry meters = MetricsServer.newRegistry("edge", "edge", "bench", "region", "us-east1");
    OnlineSigning signing = OnlineSigning.start(SigningSettings.NONE.withKeys(keys), Clock.systemUTC(), meters);
    long pid = ProcessHandle.current().pid();
    try (EdgeServer edge = startEdge(signing, meters)) {
      for (String[] warm : new String[][] {{"-D", signedQueries.toString()}, {"", signedQueries.toString()},
          {"", unsignedQueries.toString()}, {"-D", wrrQueries.toString()}}) {
        List<String> command = new ArrayList<>(List.of("dnsperf", "-s", "127.0.0.1", "-p", String.valueOf(edge.port()),
            "-d", warm[1], "-l", "4", "-c", "4"));
        if (!warm[0].isEmpty()) {
          command.add(warm[0]);
        }
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("warmup.log").toFile()).start()
            .waitFor(); // the JIT, and the first signature of each RRset
      }
      List<EdgeBenchmark.Run> nsdSigned = new ArrayList<>();
      List<EdgeBenchmark.Run> edgeSigned = new ArrayList<>();
      List<EdgeBenchmark.Run> edgeWrr = new ArrayList<>();
      List<EdgeBenchmark.Run> edgeNoDo = new ArrayList<>();
      List<EdgeBenchmark.Run> edgeUnsigned = new ArrayList<>();
      int rounds = Integer.getInteger("bench.dns.rounds", 5);
      double signaturesBefore = signatures(meters);
      for (int round = 1; round <= rounds; round++) {
        System.out.printf("round %d of %d (signatures so far %,.0f, cache %,.0f RRsets)%n", round, rounds,
            signatures(meters), gauge(meters, "healthmesh.edge.dnssec.cache.entries"));
        nsdSigned.add(EdgeBenchmark.perf("NSD, pre-signed zone, DO", nsd.port(), signedQueries, nsd.pid(), "-D"));
        edgeSigned.add(EdgeBenchmark.perf("edge, signed online, DO", edge.port(), signedQueries, pid, "-D"));
        edgeWrr.add(EdgeBenchmark.perf("  edge, WRR health-checked, DO", edge.port(), wrrQueries, pid, "-D"));
        // Alternated: whichever runs first in a round tends to get the machine's better share.
        for (int k = 0; k < 2; k++) {
          if ((round + k) % 2 == 0) {
            edgeUnsigned.add(EdgeBenchmark.perf("edge, unsigned zone", edge.port(), unsignedQueries, pid));
          } else {
            edgeNoDo.add(EdgeBenchmark.perf("edge, signed zone asked without DO", edge.port(), signedQueries, pid));
          }
        }
      }
      System.out.printf("medians: NSD signed %,.0f, edge signed %,.0f (WRR %,.0f), edge unsigned zone %,.0f, signed zone"
          + " without DO %,.0f queries/s%n", EdgeBenchmark.median(nsdSigned), EdgeBenchmark.median(edgeSigned),
          EdgeBenchmark.median(edgeWrr), EdgeBenchmark.median(edgeUnsigned), EdgeBenchmark.median(edgeNoDo));
      System.out.printf("median server CPU per query: NSD signed %.1f, edge signed %.1f (WRR %.1f), edge unsigned %.1f,"
          + " without DO %.1f µs%n", EdgeBenchmark.medianCpu(nsdSigned), EdgeBenchmark.medianCpu(edgeSigned),
          EdgeBenchmark.medianCpu(edgeWrr), EdgeBenchmark.medianCpu(edgeUnsigned), EdgeBenchmark.medianCpu(edgeNoDo));
      System.out.printf("ratio edge/NSD signed: %.2f (target >= 0.9); signed zone without DO / unsigned zone: %.2f"
          + " (target >= 0.98)%n", EdgeBenchmark.median(edgeSigned) / EdgeBenchmark.median(nsdSigned),
          EdgeBenchmark.median(edgeNoDo) / EdgeBenchmark.median(edgeUnsigned));
      System.out.printf("signatures made during the measured rounds: %,.0f (steady state: the cache answers); cache %,.0f"
          + " RRsets, about %,.1f MB%n", signatures(meters) - signaturesBefore, gauge(meters,
          "healthmesh.edge.dnssec.cache.entries"), gauge(meters, "healthmesh.edge.dnssec.cache.bytes") / 1e6);
    } finally {
      nsd.close();
      signing.close();
    }
  }

  private static double signatures(PrometheusMeterRegistry meters) {
    return meters.counter("healthmesh.edge.dnssec.signatures").count();
  }

  private static double gauge(PrometheusMeterRegistry meters, String name) {
    return meters.get(name).gauge().value();
  }

  private static String address(int i) {
    return "10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255);
  }

  private static EdgeServer startEdge(OnlineSigning signing, PrometheusMeterRegistry meters) throws IOException {
    EdgeState state = new EdgeState();
    for (String z : List.of("signed", "plain")) {
      state.zone(z, ManagedZone.newBuilder().setName(z).setDnsName(z + ".example.").setVisibility(ZoneVisibility.PUBLIC)
          .setDnssecEnabled(z.equals("signed")).setDnssecAnySubset(true).build());
      for (int i = 0; i < NAMES; i++) {
        String name = "n" + i + "." + z + ".example.";
        state.recordSet(z + "/" + name + "/A", ResourceRecordSet.newBuilder().setZone(z).setName(name).setType("A")
            .setTtl(300).setRrdatas(List.of(address(i))).build(), i);
      }
    }
    List<WrrItem> items = new ArrayList<>();
    for (String[] item : new String[][] {{"10.201.0.100", "25"}, {"10.202.0.100", "75"}}) {
      items.add(WrrItem.newBuilder().setWeight(Integer.parseInt(item[1])).setRrdatas(List.of(item[0]))
          .setHealthCheckedTargets(HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(item[0])).build()).build());
      state.health(EntityKind.EXTERNAL_ENDPOINT, item[0], HealthStatus.HEALTHY);
    }
    state.recordSet("signed/wrr.signed.example./A", ResourceRecordSet.newBuilder().setZone("signed")
        .setName("wrr.signed.example.").setType("A").setTtl(300).setRoutingPolicy(RoutingPolicy.newBuilder()
            .setWrr(WrrPolicy.newBuilder().setItems(items).build()).build()).build(), NAMES);
    Snapshot snapshot = state.snapshot(true);
    Responder responder = new Responder(() -> snapshot, new RoutingEngine(Regions.builtIn()), "us-east1",
        SubnetRegions.NONE, Rcode.SERVFAIL, ThreadLocalRandom::current, Responder.DecisionListener.NONE, null,
        PolicyListener.NONE, signing);
    return EdgeServer.start(new EdgeServer.Listen("127.0.0.1", 0, Integer.getInteger("bench.edge.udpThreads", 2), true,
        TcpLimits.defaults()), responder, meters);
  }
}
