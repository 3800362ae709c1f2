package io.healthmesh.bench;

import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.config.ZoneVisibility;
import io.healthmesh.edge.answer.Responder;
import io.healthmesh.edge.routing.Regions;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.server.EdgeServer;
import io.healthmesh.edge.servers.NameServerProcess;
import io.healthmesh.edge.servers.Nsd;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.xbill.DNS.Rcode;

/**
 * Queries per second and server CPU per query, by dnsperf on loopback, for the edge against NSD
 * (static record) and gdnsd's weighted plugin (weighted record), in one run. Needs the Debian
 * packages dnsperf, nsd and gdnsd.
 */
public final class EdgeBenchmark {
  private static final int SECONDS = Integer.getInteger("bench.dns.seconds", 6);
  private static final int ROUNDS = Integer.getInteger("bench.dns.rounds", 5);
  private static final String ZONE = """
      $TTL 300
      @ SOA ns1 hostmaster 1 3600 600 86400 300
      @ NS ns1
      ns1 A 127.0.0.1
      static A 10.0.0.5
      """;

  private EdgeBenchmark() {}

  record Run(double qps, long completed, double cpuMicrosPerQuery) {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("healthmesh-dns-bench");
    Path staticQueries = Files.writeString(dir.resolve("static.txt"), "static.bench.example A\n");
    Path wrrQueries = Files.writeString(dir.resolve("wrr.txt"), "wrr.bench.example A\n");
    System.out.printf("%nDNS benchmark: dnsperf -l %d -c 4 on loopback, %d alternating rounds; CPU is the server process's"
        + " utime+stime%n", SECONDS, ROUNDS);
    NameServerProcess nsd = Nsd.start(dir.resolve("nsd"), java.util.Map.of("bench.example", ZONE));
    Process gdnsd = startGdnsd(dir);
    try (EdgeServer edge = startEdge(true); EdgeServer nio = startEdge(false)) {
      if (!edge.udpBatched()) {
        System.out.println("the edge's native UDP library is not built (no gcc?): both edges answer through NIO");
      }
      // The JIT compiles the edge's path during a first, unmeasured run of each query.
      for (EdgeServer server : List.of(edge, nio)) {
        for (Path queries : List.of(staticQueries, wrrQueries)) {
          new ProcessBuilder("dnsperf", "-s", "127.0.0.1", "-p", String.valueOf(server.port()), "-d", queries.toString(),
              "-l", "3", "-c", "4").redirectErrorStream(true).redirectOutput(dir.resolve("warmup.log").toFile()).start()
              .waitFor();
        }
      }
      // Rounds alternate the servers and the medians are compared: on a shared two-core machine
      // one run of each, one after the other, mostly measures what else ran at the time.
      List<Run> nsdStatic = new ArrayList<>();
      List<Run> edgeStatic = new ArrayList<>();
      List<Run> gdnsdWrr = new ArrayList<>();
      List<Run> edgeWrr = new ArrayList<>();
      List<Run> nioWrr = new ArrayList<>();
      for (int round = 1; round <= ROUNDS; round++) {
        System.out.printf("round %d of %d%n", round, ROUNDS);
        nsdStatic.add(perf("NSD static A", nsd.port(), staticQueries, nsd.pid()));
        edgeStatic.add(perf("healthmesh edge static A", edge.port(), staticQueries, ProcessHandle.current().pid()));
        gdnsdWrr.add(perf("gdnsd weighted A", freePortOf(dir, "gdnsd"), wrrQueries, gdnsd.pid()));
        edgeWrr.add(perf("healthmesh edge WRR A (health-checked)", edge.port(), wrrQueries, ProcessHandle.current().pid()));
        nioWrr.add(perf("  the same, UDP through NIO (dns.udp.batch=false)", nio.port(), wrrQueries,
            ProcessHandle.current().pid()));
      }
      System.out.printf("medians: NSD %,.0f, edge static %,.0f, gdnsd weighted %,.0f, edge WRR %,.0f (NIO %,.0f) queries/s%n",
          median(nsdStatic), median(edgeStatic), median(gdnsdWrr), median(edgeWrr), median(nioWrr));
      System.out.printf("median server CPU per query: NSD %.1f, edge static %.1f, gdnsd weighted %.1f, edge WRR %.1f"
          + " (NIO %.1f) µs%n", medianCpu(nsdStatic), medianCpu(edgeStatic), medianCpu(gdnsdWrr), medianCpu(edgeWrr),
          medianCpu(nioWrr));
      System.out.printf("ratio edge/NSD static: %.2f (target >= 0.9); ratio edge/gdnsd weighted: %.2f (target >= 1.0)%n",
          median(edgeStatic) / median(nsdStatic), median(edgeWrr) / median(gdnsdWrr));
    } finally {
      nsd.close();
      gdnsd.destroy();
      gdnsd.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static EdgeServer startEdge(boolean batch) throws IOException {
    EdgeState state = new EdgeState();
    state.zone("bench", ManagedZone.newBuilder().setName("bench").setDnsName("bench.example.")
        .setVisibility(ZoneVisibility.PUBLIC).build());
    state.recordSet("bench/static.bench.example./A", ResourceRecordSet.newBuilder().setZone("bench").setName("static.bench.example.")
        .setType("A").setTtl(300).setRrdatas(List.of("10.0.0.5")).build(), 1);
    List<WrrItem> items = new ArrayList<>();
    for (String[] item : new String[][] {{"10.1.0.100", "25"}, {"10.2.0.100", "75"}}) {
      items.add(WrrItem.newBuilder().setWeight(Integer.parseInt(item[1])).setRrdatas(List.of(item[0]))
          .setHealthCheckedTargets(HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(item[0])).build()).build());
      state.health(EntityKind.EXTERNAL_ENDPOINT, item[0], HealthStatus.HEALTHY);
    }
    state.recordSet("bench/wrr.bench.example./A", ResourceRecordSet.newBuilder().setZone("bench").setName("wrr.bench.example.")
        .setType("A").setTtl(300).setRoutingPolicy(RoutingPolicy.newBuilder()
            .setWrr(WrrPolicy.newBuilder().setItems(items).build()).build()).build(), 2);
    var snapshot = state.snapshot(true);
    Responder responder = new Responder(() -> snapshot, new RoutingEngine(Regions.builtIn()), "us-east1", io.healthmesh.edge.routing.SubnetRegions.NONE,
        Rcode.SERVFAIL, ThreadLocalRandom::current, Responder.DecisionListener.NONE);
    return EdgeServer.start(new EdgeServer.Listen("127.0.0.1", 0, Integer.getInteger("bench.edge.udpThreads", 2), batch,
        io.healthmesh.edge.server.TcpLimits.defaults()), responder,
        io.healthmesh.observability.MetricsServer.newRegistry("edge", "edge", "bench", "region", "us-east1"));
  }

  private static Process startGdnsd(Path dir) throws Exception {
    Path gd = Files.createDirectories(dir.resolve("gdnsd"));
    Files.createDirectories(gd.resolve("zones"));
    int port = freePort();
    Files.writeString(gd.resolve("port"), String.valueOf(port));
    Files.writeString(gd.resolve("zones/bench.example"), ZONE + "wrr DYNA weighted!wrr\n");
    // No monitoring: health checks would send traffic to the 10.x addresses, off this machine.
    Files.writeString(gd.resolve("config"), """
        options => { listen => [ 127.0.0.1 ], dns_port => %d }
        plugins => { weighted => { service_types => up, wrr => { addrs_v4 => {
          a => [ 10.1.0.100, 25 ], b => [ 10.2.0.100, 75 ] } } } }
        """.formatted(port));
    return started(new ProcessBuilder("gdnsd", "-c", gd.toString(), "-f", "start"), gd, port);
  }

  private static Process started(ProcessBuilder builder, Path dir, int port) throws Exception {
    Process p = builder.redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline) {
      Process dig = new ProcessBuilder("dig", "@127.0.0.1", "-p", String.valueOf(port), "static.bench.example", "A",
          "+short", "+time=1", "+tries=1").redirectErrorStream(true).start();
      dig.waitFor(5, TimeUnit.SECONDS);
      if (new String(dig.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip().equals("10.0.0.5")) {
        return p;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(builder.command() + " did not answer; see " + dir.resolve("out.log"));
  }

  private static int freePortOf(Path dir, String server) throws IOException {
    return Integer.parseInt(Files.readString(dir.resolve(server).resolve("port")).strip());
  }

  /** @param flags more dnsperf flags ({@code -D}: the DO bit) */
  static Run perf(String name, int port, Path queries, long serverPid, String... flags) throws Exception {
    long cpu0 = cpuTicks(serverPid);
    long[] machine0 = machineTicks();
    // bash reports dnsperf's own CPU, so the client's share of the two cores shows too.
    Process p = new ProcessBuilder("bash", "-c", "TIMEFORMAT='client-cpu %U %S'; time dnsperf -s 127.0.0.1 -p " + port
        + " -d " + queries + " -l " + SECONDS + " -c 4 " + String.join(" ", flags)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    long cpu1 = cpuTicks(serverPid);
    long[] machine1 = machineTicks();
    Matcher client = Pattern.compile("client-cpu ([0-9.]+) ([0-9.]+)").matcher(out);
    double clientSeconds = client.find() ? Double.parseDouble(client.group(1)) + Double.parseDouble(client.group(2)) : 0;
    double idle = (double) (machine1[1] - machine0[1]) / Math.max(1, machine1[0] - machine0[0]);
    double qps = number(out, "Queries per second:\\s+([0-9.]+)");
    long completed = (long) number(out, "Queries completed:\\s+([0-9]+)");
    long lost = (long) number(out, "Queries lost:\\s+([0-9]+)");
    double cpuMicros = completed == 0 ? 0 : (cpu1 - cpu0) * 10_000.0 / completed; // 100 ticks per second
    System.out.printf("%-42s %,10.0f queries/s  %5.1f µs server, %5.1f µs client CPU per query, %4.1f%% idle"
        + "  (%,d completed, %,d lost)%n", name, qps, cpuMicros, clientSeconds * 1e6 / Math.max(1, completed), idle * 100,
        completed, lost);
    return new Run(qps, completed, cpuMicros);
  }

  static double median(List<Run> runs) {
    return median(runs.stream().mapToDouble(Run::qps).sorted().toArray());
  }

  static double medianCpu(List<Run> runs) {
    return median(runs.stream().mapToDouble(Run::cpuMicrosPerQuery).sorted().toArray());
  }

  static double median(double[] sorted) {
    return sorted.length % 2 == 1 ? sorted[sorted.length / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  }

  static double number(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    if (!m.find()) {
      throw new IllegalStateException("dnsperf said:\n" + text);
    }
    return Double.parseDouble(m.group(1));
  }

  /** utime+stime of a process and all its descendants (NSD serves from a child). */
  private static long cpuTicks(long pid) {
    long ticks = ticksOf(pid);
    for (ProcessHandle child : ProcessHandle.of(pid).map(h -> h.descendants().toList()).orElse(List.of())) {
      ticks += ticksOf(child.pid());
    }
    return ticks;
  }

  static long ticksOf(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // comm may contain spaces
      return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    } catch (IOException e) {
      return 0;
    }
  }

  /** Total and idle (incl. iowait) ticks of the whole machine, from /proc/stat. */
  private static long[] machineTicks() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long total = 0;
      for (int i = 1; i < f.length; i++) {
        total += Long.parseLong(f[i]);
      }
      return new long[] {total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
    } catch (IOException e) {
      return new long[2];
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
