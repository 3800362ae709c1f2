package io.healthmesh.cli.audit;

import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.edge.explain.RecordSetView;
import io.healthmesh.edge.explain.TargetStates;
import io.healthmesh.edge.rules.DnsConfigRules;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.net.IpAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * What an edge would have answered at an instant, and why: the record set version in force, the
 * health every address had then, and the distribution of answers of the edge's own routing engine
 * over many draws (so the figures are the engine's, not a second implementation of the rules).
 */
public final class Explainer {
  public static final int DRAWS = 100_000;
  private final ConfigHistory config;
  private final Transitions transitions;

  public Explainer(ConfigHistory config, Transitions transitions) {
    this.config = config;
    this.transitions = transitions;
  }

  /**
   * One address of a bucket with its health at the instant.
   *
   * @param since ISO-8601 time the target took its state, null when it never had one
   * @param countedAs what the record set took an UNKNOWN target for (R-OP-2); null when its state
   * @param why the detail of the transition that set its state (the probers' views for one decided
   *     by quorum, R-PQ-4); null when it never had a transition
   */
  public record AddressAt(String rrdata, boolean checked, HealthStatus health, String since, HealthStatus countedAs,
      String why) {}

  /** One item of the policy. */
  public record BucketAt(String label, int weight, String location, List<AddressAt> addresses) {}

  /** @param dryRun the dry run in force beside it (R-OP-5), explained alike; null when there is none */
  public record Explanation(String recordSet, ConfigHistory.Version version, String policy, String sourceRegion,
      List<BucketAt> buckets, List<RecordSetView.Outcome> outcomes, Explanation dryRun) {}

  /** @return null when no such record set was in force at {@code at} */
  public Explanation explain(String zoneOrNull, String name, String type, Instant at, String sourceRegion) {
    String fqdn = name.endsWith(".") ? name : name + ".";
    ConfigHistory.Version live = null;
    ConfigHistory.Version dryRun = null;
    for (Map.Entry<String, SpecificRecord> e
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
    RecordSetView view = RecordSetView.of(rrs, new TargetStates() {
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
      public LastKnown lastKnown(EntityKind kind, String entity) {
        Transitions.State state = transitions.at(kind, entity, at);
        HealthTransition into = state.setBy();
        return state.status() != HealthStatus.UNKNOWN || into == null || into.getOldStatus() == HealthStatus.UNKNOWN
            ? null : new LastKnown(into.getOldStatus(), into.getEventTime().toEpochMilli());
      }

      @Override
      public long now() {
        return at.toEpochMilli();
      }
    });
    return new Explanation(DnsConfigRules.key(rrs), version, view.policy().name(), sourceRegion, buckets(view, at),
        view.outcomes(sourceRegion, DRAWS), dryRun);
  }

  private List<BucketAt> buckets(RecordSetView view, Instant at) {
    List<BucketAt> result = new ArrayList<>();
    for (RecordSetView.BucketView b : view.buckets()) {
      List<AddressAt> addresses = new ArrayList<>();
      for (RecordSetView.AddressView a : b.addresses()) {
        Transitions.State state = a.checked() ? target(a.rrdata(), at) : null;
        addresses.add(new AddressAt(a.rrdata(), a.checked(), a.health(),
            state == null || state.since() == null ? null : state.since().toString(), a.countedAs(),
            state == null || state.setBy() == null ? null : state.setBy().getCause().getDetail()));
      }
      result.add(new BucketAt(b.label(), b.weight(), b.location(), addresses));
    }
    return result;
  }

  /** The state at {@code at} of the address's target: a forwarding rule with that address, or the endpoint. */
  private Transitions.State target(String rrdata, Instant at) {
    String address = IpAddress.canonicalOrSame(rrdata);
    Transitions.State state = transitions.at(EntityKind.EXTERNAL_ENDPOINT, address, at);
    for (var value : config.all(ResourceKind.FORWARDING_RULE, at).values()) {
      ForwardingRule rule = (ForwardingRule) value;
      if (IpAddress.canonicalOrSame(rule.getIpAddress()).equals(address)) {
        state = transitions.at(EntityKind.FORWARDING_RULE, rule.getName(), at);
      }
    }
    return state;
  }
}
