package io.healthmesh.edge.explain;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.edge.routing.Address;
import io.healthmesh.edge.routing.Bucket;
import io.healthmesh.edge.routing.Decision;
import io.healthmesh.edge.routing.Plan;
import io.healthmesh.edge.routing.PlanBuilder;
import io.healthmesh.edge.routing.Regions;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.events.DecisionReason;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.RoutingPolicyType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A record set planned as an edge plans it under the given target states: its buckets with each
 * address's health, and the distribution of answers the edge's routing engine gives over many
 * draws (so the figures are the engine's, not a second implementation of the rules).
 */
public final class RecordSetView {
  private static final Map<DecisionReason, String> RULES = Map.ofEntries(
      Map.entry(DecisionReason.FAIL_CLOSED, "R-OP-1 (fail closed: NODATA)"),
      Map.entry(DecisionReason.FALLBACK, "R-OP-1 (fixed fallback)"),
      Map.entry(DecisionReason.STATIC, "no routing policy"),
      Map.entry(DecisionReason.WEIGHT_DRAW, "R-WRR-2 (R-WRR-3 when all weights are 0)"),
      Map.entry(DecisionReason.PRIMARY, "R-FO-1"), Map.entry(DecisionReason.TRICKLE, "R-FO-3"),
      Map.entry(DecisionReason.FAILOVER, "R-FO-2 (failover) or R-WRR-5/R-WRR-6 (WRR share moved)"),
      Map.entry(DecisionReason.GEO_MATCH, "R-GEO-1, R-GEO-6"), Map.entry(DecisionReason.GEO_FALLBACK, "R-GEO-2, R-GEO-3"),
      Map.entry(DecisionReason.FENCE, "R-GEO-5"), Map.entry(DecisionReason.FAIL_OPEN, "R-WRR-8, R-FO-5"));
  private static final RoutingEngine ENGINE = new RoutingEngine(Regions.builtIn());

  /** @param countedAs what the record set took an UNKNOWN target for (R-OP-2); null when its state */
  public record AddressView(String rrdata, boolean checked, HealthStatus health, HealthStatus countedAs) {}

  /** One item of the policy. */
  public record BucketView(String label, int weight, String location, List<AddressView> addresses) {}

  /** One possible answer, how often the engine gives it, and the rule that gives it. */
  public record Outcome(List<String> answer, String bucket, DecisionReason reason, String rule, double probability) {}

  private final Plan plan;

  private RecordSetView(Plan plan) {
    this.plan = plan;
  }

  public static RecordSetView of(ResourceRecordSet rrs, TargetStates states) {
    return new RecordSetView(PlanBuilder.plan(rrs, new PlanBuilder.Targets() {
      @Override
      public ForwardingRule forwardingRule(String name) {
        return states.forwardingRule(name);
      }

      @Override
      public HealthStatus health(EntityKind kind, String name) {
        return states.health(kind, name);
      }

      @Override
      public PlanBuilder.LastKnown lastKnown(EntityKind kind, String name) {
        TargetStates.LastKnown last = states.lastKnown(kind, name);
        return last == null ? null : new PlanBuilder.LastKnown(last.status(), last.unknownSinceMillis());
      }

      @Override
      public long now() {
        return states.now();
      }
    }));
  }

  public RoutingPolicyType policy() {
    return plan.policyType();
  }

  public List<BucketView> buckets() {
    List<BucketView> buckets = new ArrayList<>();
    for (Bucket b : plan.buckets()) {
      List<AddressView> addresses = new ArrayList<>();
      for (Address a : b.addresses()) {
        addresses.add(new AddressView(a.rrdata(), a.checked(), a.checked() ? a.status() : null,
            a.checked() && a.counted() != a.status() ? a.counted() : null));
      }
      buckets.add(new BucketView(b.label(), b.weight(), b.location(), addresses));
    }
    return buckets;
  }

  /** The answers for a query from {@code sourceRegion}, most frequent first, over {@code draws} seeded draws. */
  public List<Outcome> outcomes(String sourceRegion, int draws) {
    SplittableRandom random = new SplittableRandom(42);
    Map<String, int[]> counts = new TreeMap<>();
    Map<String, Decision> examples = new TreeMap<>();
    for (int i = 0; i < draws; i++) {
      Decision d = ENGINE.answer(plan, sourceRegion, random);
      String key = d.bucket() + "|" + d.reason() + "|" + d.answer().stream().sorted().toList();
      counts.computeIfAbsent(key, k -> new int[1])[0]++;
      examples.putIfAbsent(key, d);
    }
    List<Outcome> outcomes = new ArrayList<>();
    counts.forEach((key, n) -> {
      Decision d = examples.get(key);
      outcomes.add(new Outcome(d.answer().stream().sorted().toList(), d.bucket(), d.reason(), RULES.get(d.reason()),
          n[0] / (double) draws));
    });
    outcomes.sort(Comparator.comparingDouble(Outcome::probability).reversed());
    return outcomes;
  }
}
