package io.healthmesh.cli.audit;

import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.edge.routing.Address;
import io.healthmesh.edge.routing.Bucket;
import io.healthmesh.edge.routing.Decision;
import io.healthmesh.edge.routing.Plan;
import io.healthmesh.edge.routing.PlanBuilder;
import io.healthmesh.edge.routing.Regions;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.rules.DnsConfigRules;
import io.healthmesh.events.DecisionReason;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.net.IpAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * What an edge would have answered at an instant, and why: the record set version in force, the
 * health every address had then, and the distribution of answers of the edge's own routing engine
 * over many draws (so the figures are the engine's, not a second implementation of the rules).
 */
public final class Explainer {
  public static final int DRAWS = 100_000;
  private static final Map<DecisionReason, String> RULES = Map.ofEntries(
      Map.entry(DecisionReason.FAIL_CLOSED, "R-OP-1 (fail closed: NODATA)"),
      Map.entry(DecisionReason.FALLBACK, "R-OP-1 (fixed fallback)"),
      Map.entry(DecisionReason.STATIC, "no routing policy"), Map.entry(DecisionReason.WEIGHT_DRAW,
          "R-WRR-2 (R-WRR-3 when all weights are 0)"), Map.entry(DecisionReason.PRIMARY, "R-FO-1"),
      Map.entry(DecisionReason.TRICKLE, "R-FO-3"), Map.entry(DecisionReason.FAILOVER,
          "R-FO-2 (failover) or R-WRR-5/R-WRR-6 (WRR share moved)"), Map.entry(DecisionReason.GEO_MATCH,
          "R-GEO-1, R-GEO-6"), Map.entry(DecisionReason.GEO_FALLBACK, "R-GEO-2, R-GEO-3"),
      Map.entry(DecisionReason.FENCE, "R-GEO-5"), Map.entry(DecisionReason.FAIL_OPEN, "R-WRR-8, R-FO-5"));
  private final ConfigHistory config;
  private final Transitions transitions;
  private final RoutingEngine engine = new RoutingEngine(Regions.builtIn());

  public Explainer(ConfigHistory config, Transitions transitions) {
    this.config = config;
    this.transitions = transitions;
  }

  /**
   * One address of a bucket with its health at the instant.
   *
   * @param since ISO-8601 time the target took its state, null when it never had one
   * @param countedAs what the record set took an UNKNOWN target for (R-OP-2); null when its state
   */
  public record AddressAt(String rrdata, boolean checked, HealthStatus health, String since, HealthStatus countedAs) {}

  /** One item of the policy. */
  public record BucketAt(String label, int weight, String location, List<AddressAt> addresses) {}

  /** One possible answer and how often the engine gives it. */
  public record Outcome(List<String> answer, String bucket, DecisionReason reason, String rule, double probability) {}

  /** @param dryRun the dry run in force beside it (R-OP-5), explained alike; null when there is none */
  public record Explanation(String recordSet, ConfigHistory.Version version, String policy, String sourceRegion,
      List<BucketAt> buckets, List<Outcome> outcomes, Explanation dryRun) {}

  /** @return null when no such record set was in force at {@code at} */
  public Explanation explain(String zoneOrNull, String name, String type, Instant at, String sourceRegion) {
    String fqdn = name.endsWith(".") ? name : name + ".";
    ConfigHistory.Version live = null;
    ConfigHistory.Version dryRun = null;
    for (Map.Entry<String, org.apache.avro.specific.SpecificRecord> e
        : config.all(ResourceKind.RESOURCE_RECORD_SET, at).entrySet()) {
      ResourceRecordSet rrs = (ResourceRecordSet) e.getValue();
      if (rrs.getName().equalsIgnoreCase(fqdn) && rrs.getType().equalsIgnoreCase(type)
          && (zoneOrNull == null || zoneOrNull.equals(rrs.getZone()))) {
        ConfigHistory.Version v = config.at(ResourceKind.RESOURCE_RECORD_SET, e.getKey(), at);
        if (rrs.getDryRun()) {
          dryRun = v;
        } else {
          live = v;
        }
      }
    }
    if (live == null) {
      return null; // an edge decides a dry run only beside a live record set
    }
    return explain(live, at, sourceRegion, dryRun == null ? null : explain(dryRun, at, sourceRegion, null));
  }

  private Explanation explain(ConfigHistory.Version version, Instant at, String sourceRegion, Explanation dryRun) {
    ResourceRecordSet rrs = (ResourceRecordSet) version.value();
    Plan plan = PlanBuilder.plan(rrs, new PlanBuilder.Targets() {
      @Override
      public ForwardingRule forwardingRule(String rule) {
        ConfigHistory.Version v = config.at(ResourceKind.FORWARDING_RULE, rule, at);
        return v == null ? null : (ForwardingRule) v.value();
      }

      @Override
      public HealthStatus health(EntityKind kind, String entity) {
        return transitions.at(kind, entity, at).status();
      }

      /** As the topology publishes it: the state the transition into UNKNOWN left (R-OP-2). */
      @Override
      public PlanBuilder.LastKnown lastKnown(EntityKind kind, String entity) {
        Transitions.State state = transitions.at(kind, entity, at);
        HealthTransition into = state.setBy();
        return state.status() != HealthStatus.UNKNOWN || into == null || into.getOldStatus() == HealthStatus.UNKNOWN
            ? null : new PlanBuilder.LastKnown(into.getOldStatus(), into.getEventTime().toEpochMilli());
      }

      @Override
      public long now() {
        return at.toEpochMilli();
      }
    });
    return new Explanation(DnsConfigRules.key(rrs), version, policyName(plan), sourceRegion, buckets(plan, at),
        outcomes(plan, sourceRegion), dryRun);
  }

  private List<Outcome> outcomes(Plan plan, String sourceRegion) {
    SplittableRandom random = new SplittableRandom(42);
    Map<String, int[]> counts = new TreeMap<>();
    Map<String, Decision> examples = new TreeMap<>();
    for (int i = 0; i < DRAWS; i++) {
      Decision d = engine.answer(plan, sourceRegion, random);
      List<String> sorted = d.answer().stream().sorted().toList();
      String key = d.bucket() + "|" + d.reason() + "|" + sorted;
      counts.computeIfAbsent(key, k -> new int[1])[0]++;
      examples.putIfAbsent(key, d);
    }
    List<Outcome> outcomes = new ArrayList<>();
    counts.forEach((key, n) -> {
      Decision d = examples.get(key);
      outcomes.add(new Outcome(d.answer().stream().sorted().toList(), d.bucket(), d.reason(), RULES.get(d.reason()),
          n[0] / (double) DRAWS));
    });
    outcomes.sort((a, b) -> Double.compare(b.probability(), a.probability()));
    return outcomes;
  }

  private List<BucketAt> buckets(Plan plan, Instant at) {
    List<BucketAt> result = new ArrayList<>();
    for (Bucket b : plan.buckets()) {
      List<AddressAt> addresses = new ArrayList<>();
      for (Address a : b.addresses()) {
        addresses.add(new AddressAt(a.rrdata(), a.checked(), a.checked() ? a.status() : null,
            a.checked() ? since(a, at) : null, a.checked() && a.counted() != a.status() ? a.counted() : null));
      }
      result.add(new BucketAt(b.label(), b.weight(), b.location(), addresses));
    }
    return result;
  }

  /** When the address's target (a forwarding rule with that address, or the endpoint) took its state. */
  private String since(Address a, Instant at) {
    String address = IpAddress.canonicalOrSame(a.rrdata());
    Transitions.State state = transitions.at(EntityKind.EXTERNAL_ENDPOINT, address, at);
    for (var value : config.all(ResourceKind.FORWARDING_RULE, at).values()) {
      ForwardingRule rule = (ForwardingRule) value;
      if (IpAddress.canonicalOrSame(rule.getIpAddress()).equals(address)) {
        state = transitions.at(EntityKind.FORWARDING_RULE, rule.getName(), at);
      }
    }
    return state.since() == null ? null : state.since().toString();
  }

  private static String policyName(Plan planned) {
    Plan plan = planned.routed();
    return plan instanceof Plan.Wrr ? "WRR" : plan instanceof Plan.Geo ? "GEO" : plan instanceof Plan.Failover
        ? "FAILOVER" : "NONE";
  }
}
