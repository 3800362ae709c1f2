package io.healthmesh.edge.routing;

import io.healthmesh.events.DecisionReason;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The routing rules of docs/rules.md section 4 as one pure function of (plan, source region, random
 * source): the same inputs and seed always give the same decision.
 */
public final class RoutingEngine {
  private final Regions regions;

  public RoutingEngine(Regions regions) {
    this.regions = regions;
  }

  /** @param sourceRegion where the query entered (R-GEO-1): the edge's region or the ECS-mapped one */
  public Decision answer(Plan plan, String sourceRegion, RandomGenerator random) {
    if (plan instanceof Plan.Static s) {
      return new Decision("static", DecisionReason.STATIC, shuffled(s.rrdatas(), random), List.of());
    }
    if (plan instanceof Plan.Wrr wrr) {
      return wrr(wrr, random);
    }
    if (plan instanceof Plan.Geo geo) {
      return geo(geo, sourceRegion, random);
    }
    if (plan instanceof Plan.FailClosed closed) {
      return failClosed(closed, sourceRegion, random);
    }
    return failover((Plan.Failover) plan, sourceRegion, random);
  }

  /** R-OP-1: where the plan would fail open, answer nothing, or the fixed fallback. */
  private Decision failClosed(Plan.FailClosed plan, String sourceRegion, RandomGenerator random) {
    Decision d = answer(plan.plan(), sourceRegion, random);
    // A fence answers its region's failed addresses while other regions may be up; only when
    // every item is down is it the fail-open that this record set refuses.
    boolean failedOpen = d.reason() == DecisionReason.FAIL_OPEN
        || d.reason() == DecisionReason.FENCE && plan.buckets().stream().noneMatch(Bucket::eligible);
    if (!failedOpen) {
      return d;
    }
    return plan.fallback().isEmpty() ? new Decision(d.bucket(), DecisionReason.FAIL_CLOSED, List.of(), d.considered())
        : new Decision("fallback", DecisionReason.FALLBACK, shuffled(plan.fallback(), random), d.considered());
  }

  /** R-WRR-2..8. Loops rather than streams: this runs for every query. */
  private Decision wrr(Plan.Wrr plan, RandomGenerator random) {
    List<Bucket> items = plan.items();
    long weighted = 0;
    int eligible = 0;
    boolean allZero = true;
    for (Bucket b : items) {
      allZero &= b.weight() == 0;
      if (b.eligible()) { // R-WRR-5, R-DNS-4
        eligible++;
        weighted += b.weight();
      }
    }
    if (weighted > 0) { // R-WRR-2, R-WRR-4: zero-weight items get nothing
      long draw = random.nextLong(weighted);
      for (Bucket b : items) {
        if (b.eligible() && (draw -= b.weight()) < 0) {
          return chosen(b, DecisionReason.WEIGHT_DRAW, random);
        }
      }
    }
    if (eligible > 0) {
      // R-WRR-3 (all zero: even split) or R-WRR-6 (zero-weight items stand in for failed ones).
      int pick = random.nextInt(eligible);
      for (Bucket b : items) {
        if (b.eligible() && pick-- == 0) {
          return chosen(b, allZero ? DecisionReason.WEIGHT_DRAW : DecisionReason.FAILOVER, random);
        }
      }
    }
    // R-WRR-7, R-WRR-8: nothing is healthy; answer as if all were, zero-weight items never.
    List<Bucket> nonZero = items.stream().filter(b -> b.weight() > 0).toList();
    Bucket b = nonZero.isEmpty() ? items.get(random.nextInt(items.size())) : weightedDraw(nonZero, random);
    return failOpen(b, b.label(), random);
  }

  /** R-GEO-1..6. {@code null} result means every item is dead and fencing is off. */
  private Decision geo(Plan.Geo plan, String sourceRegion, RandomGenerator random) {
    List<Bucket> nearest = byDistance(plan.items(), sourceRegion);
    Bucket first = nearest.get(0);
    DecisionReason located = first.location().equals(sourceRegion) ? DecisionReason.GEO_MATCH : DecisionReason.GEO_FALLBACK;
    if (plan.fencing()) {
      if (!first.eligible()) {
        return failOpen(first, first.label(), random, DecisionReason.FENCE); // R-GEO-5
      }
      return chosen(first, located, random);
    }
    for (Bucket b : nearest) {
      if (b.eligible()) { // R-GEO-3; a mixed item answers with its unchecked addresses (R-GEO-4)
        return chosen(b, b == first ? located : DecisionReason.GEO_FALLBACK, random);
      }
    }
    return failOpen(first, first.label(), random); // like R-WRR-8
  }

  /** R-FO-1..5. */
  private Decision failover(Plan.Failover plan, String sourceRegion, RandomGenerator random) {
    boolean primaryUp = plan.primary().eligible();
    boolean trickle = plan.trickle() > 0 && random.nextDouble() < plan.trickle(); // R-FO-3
    if (trickle || !primaryUp) {
      Decision backup = geo(plan.backup(), sourceRegion, random);
      boolean backupUp = backup.reason() != DecisionReason.FAIL_OPEN && backup.reason() != DecisionReason.FENCE;
      if (backupUp) {
        return new Decision("backup/" + backup.bucket(), trickle && primaryUp ? DecisionReason.TRICKLE
            : DecisionReason.FAILOVER, backup.answer(), backup.considered()); // R-FO-2, R-FO-4
      }
      if (trickle && !primaryUp) {
        // R-FO-5: everything is down, so answer as if everything were up: the trickle share
        // still goes to the backup, and a manual failover (1.0) stays on it.
        return new Decision("backup/" + backup.bucket(), DecisionReason.FAIL_OPEN, backup.answer(), backup.considered());
      }
    }
    if (primaryUp) {
      return chosen(plan.primary(), DecisionReason.PRIMARY, random); // R-FO-1
    }
    return failOpen(plan.primary(), plan.primary().label(), random); // R-FO-5
  }

  private List<Bucket> byDistance(List<Bucket> items, String sourceRegion) {
    List<Bucket> sorted = new ArrayList<>(items);
    // Stable: items at equal (or unknown) distance keep their configured order.
    sorted.sort(Comparator.comparingDouble(b -> regions.distance(sourceRegion, b.location())));
    return sorted;
  }

  private static Bucket weightedDraw(List<Bucket> buckets, RandomGenerator random) {
    long total = 0;
    for (Bucket b : buckets) {
      total += b.weight();
    }
    long draw = random.nextLong(total);
    for (Bucket b : buckets) {
      draw -= b.weight();
      if (draw < 0) {
        return b;
      }
    }
    throw new IllegalStateException("weights changed during the draw");
  }

  private static Decision chosen(Bucket b, DecisionReason reason, RandomGenerator random) {
    return new Decision(b.label(), reason, shuffled(b.healthy(), random), b.addresses());
  }

  private static Decision failOpen(Bucket b, String label, RandomGenerator random) {
    return failOpen(b, label, random, DecisionReason.FAIL_OPEN);
  }

  private static Decision failOpen(Bucket b, String label, RandomGenerator random, DecisionReason reason) {
    return new Decision(label, reason, shuffled(b.all(), random), b.addresses());
  }

  /** R-DNS-4: several addresses in random order (Fisher-Yates with the given source). */
  private static List<String> shuffled(List<String> rrdatas, RandomGenerator random) {
    if (rrdatas.size() < 2) {
      return rrdatas;
    }
    List<String> copy = new ArrayList<>(rrdatas);
    for (int i = copy.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      String t = copy.get(i);
      copy.set(i, copy.get(j));
      copy.set(j, t);
    }
    return copy;
  }
}
