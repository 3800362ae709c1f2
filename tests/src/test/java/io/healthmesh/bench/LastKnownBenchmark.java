package io.healthmesh.bench;

import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.UnknownTargetBehavior;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.edge.routing.PlanBuilder;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.util.List;

/**
 * R-OP-2 at 100,000 record sets (N WRR record sets over 2N external endpoints, in the edge's own
 * state): what it costs when every last known state runs out at once and the edge re-plans
 * every record set with no record read, against the anchor in the same run, a burst of N
 * health records that re-plans as many; and what the default (no last known) costs beside it.
 */
public final class LastKnownBenchmark {
  private static final int N = Integer.getInteger("bench.lastknown.sets", 100_000);
  private static final int ROUNDS = Integer.getInteger("bench.lastknown.rounds", 5);
  private static final int MAX_AGE_SECONDS = 60;

  private LastKnownBenchmark() {}

  public static void main(String[] args) {
    System.out.printf("%n== R-OP-2: last known states running out, %,d record sets over %,d endpoints ==%n", N, 2 * N);
    for (UnknownTargetBehavior behavior : List.of(UnknownTargetBehavior.COUNT_HEALTHY, UnknownTargetBehavior.LAST_KNOWN)) {
      run(behavior);
    }
  }

  private static void run(UnknownTargetBehavior behavior) {
    long[] clock = {1_000_000_000L};
    EdgeState state = new EdgeState(0, () -> clock[0]);
    state.zone("internal", ManagedZone.newBuilder().setName("internal").setDnsName("example.internal.")
        .setNetworks(List.of("10.0.0.0/8")).build());
    for (int i = 0; i < N; i++) {
      state.recordSet(key(i), recordSet(i, behavior), i);
    }
    state.snapshot(true);
    double[] burst = new double[ROUNDS];
    double[] expiry = new double[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
      // the anchor: one health record per record set, each re-planning it
      HealthStatus flip = round % 2 == 0 ? HealthStatus.UNHEALTHY : HealthStatus.HEALTHY;
      long started = System.nanoTime();
      for (int i = 0; i < N; i++) {
        state.health(EntityKind.EXTERNAL_ENDPOINT, endpoint(i, 1), flip);
      }
      state.snapshot(true);
      burst[round] = (System.nanoTime() - started) / 1e6;

      // every first endpoint goes UNKNOWN, down when last known, then the age runs out at once
      for (int i = 0; i < N; i++) {
        state.health(EntityKind.EXTERNAL_ENDPOINT, endpoint(i, 0), HealthStatus.UNKNOWN,
            new PlanBuilder.LastKnown(HealthStatus.UNHEALTHY, clock[0]));
      }
      state.snapshot(true);
      clock[0] += MAX_AGE_SECONDS * 1000L;
      started = System.nanoTime();
      boolean due = state.expire();
      state.snapshot(true);
      expiry[round] = (System.nanoTime() - started) / 1e6;
      if (due != (behavior == UnknownTargetBehavior.LAST_KNOWN)) {
        throw new IllegalStateException("expiry " + (due ? "re-planned" : "did not re-plan") + " under " + behavior);
      }
      long counted = state.unknownCountedAs(HealthStatus.UNHEALTHY);
      if (counted != 0) {
        throw new IllegalStateException(counted + " targets still counted down after their maximum age");
      }
      for (int i = 0; i < N; i++) {
        state.health(EntityKind.EXTERNAL_ENDPOINT, endpoint(i, 0), HealthStatus.HEALTHY);
      }
      state.snapshot(true);
    }
    double b = median(burst);
    double e = median(expiry);
    System.out.printf("%-14s burst of %,d health records -> snapshot: %7.1f ms (anchor); all last known states"
        + " running out -> snapshot: %7.1f ms; ratio %.2f%n", behavior, N, b, e, e / b);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static String key(int i) {
    return "internal/rs" + i + ".example.internal./A";
  }

  private static String endpoint(int i, int which) {
    return "10." + (which * 64 + i / 65536) + "." + (i / 256 % 256) + "." + (i % 256);
  }

  private static ResourceRecordSet recordSet(int i, UnknownTargetBehavior behavior) {
    List<String> addresses = List.of(endpoint(i, 0), endpoint(i, 1));
    return ResourceRecordSet.newBuilder().setZone("internal").setName("rs" + i + ".example.internal.").setType("A")
        .setTtl(30).setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            WrrItem.newBuilder().setWeight(1).setRrdatas(addresses).setHealthCheckedTargets(HealthCheckedTargets
                .newBuilder().setExternalEndpoints(addresses).build()).build())).build())
            .setUnknownTargets(behavior)
            .setLastKnownMaxAgeSeconds(behavior == UnknownTargetBehavior.LAST_KNOWN ? MAX_AGE_SECONDS : 0).build())
        .build();
  }
}
