package io.healthmesh.bench;

import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Random;

/**
 * The edge's in-memory model alone, in process: N record sets taken in (validated and indexed)
 * with the health of their 2N targets, one full snapshot, then 20,000 health flips each followed
 * by a snapshot; WRR A record sets (two checked addresses each) and static TXT ones. What it is
 * for: comparing two builds of {@code EdgeState} on the same machine, by running this class with
 * each build's {@code dns-edge} classes first on the class path, alternately (docs/benchmarks.md,
 * "Edge intake"). {@code -Dbench.sizes} (the largest is taken), {@code -Dbench.rounds}.
 */
public final class EdgeIntakeBenchmark {
  private static final int ROUNDS = Integer.getInteger("bench.rounds", 5);
  private static final int FLIPS = 20_000;

  private EdgeIntakeBenchmark() {}

  public static void main(String[] args) {
    List<Integer> sizes = Benchmarks.sizes();
    int n = sizes.get(sizes.size() - 1);
    for (String type : List.of("A", "TXT")) {
      ResourceRecordSet[] sets = recordSets(n, type);
      System.out.printf("%nEdge intake, %,d %s record sets, %d rounds (the first warms up)%n", n, type, ROUNDS);
      for (int round = 0; round < ROUNDS; round++) {
        long cpu0 = cpu();
        long t0 = System.nanoTime();
        EdgeState state = new EdgeState();
        state.zone("bench", ManagedZone.newBuilder().setName("bench").setDnsName("bench.example.")
            .setNetworks(List.of("127.0.0.0/8")).build());
        for (int i = 0; i < n; i++) {
          state.recordSet("bench/r" + i + ".bench.example./" + type, sets[i], i);
        }
        for (int i = 0; i < 2 * n; i++) {
          state.health(EntityKind.EXTERNAL_ENDPOINT, address(i), HealthStatus.HEALTHY);
        }
        long t1 = System.nanoTime();
        state.snapshot(true);
        long t2 = System.nanoTime();
        Random random = new Random(3);
        for (int k = 0; k < FLIPS; k++) {
          state.health(EntityKind.EXTERNAL_ENDPOINT, address(2 * random.nextInt(n)),
              k % 2 == 0 ? HealthStatus.UNHEALTHY : HealthStatus.HEALTHY);
          state.snapshot(true);
        }
        long t3 = System.nanoTime();
        System.out.printf("round %d: intake %.0f ms, full snapshot %.0f ms, flip + snapshot %.1f µs, CPU %.0f ms%n",
            round, (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e3 / FLIPS, (cpu() - cpu0) / 1e6);
      }
    }
  }

  private static ResourceRecordSet[] recordSets(int n, String type) {
    ResourceRecordSet[] sets = new ResourceRecordSet[n];
    for (int i = 0; i < n; i++) {
      ResourceRecordSet.Builder rrs = ResourceRecordSet.newBuilder().setZone("bench").setName("r" + i + ".bench.example.")
          .setType(type).setTtl(30);
      if (type.equals("TXT")) {
        rrs.setRrdatas(List.of("\"v=spf1 include:_spf" + i + ".example.com ~all\"", "\"site-verification=" + i + "\""));
      } else {
        rrs.setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            item(address(2 * i)), item(address(2 * i + 1)))).build()).build());
      }
      sets[i] = rrs.build();
    }
    return sets;
  }

  private static WrrItem item(String address) {
    return WrrItem.newBuilder().setWeight(1).setRrdatas(List.of(address)).setHealthCheckedTargets(
        HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(address)).build()).build();
  }

  private static String address(int i) {
    return "10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255);
  }

  private static long cpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
