package io.healthmesh.edge.state;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.ResponsePolicy;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ServerPolicy;
import io.healthmesh.edge.policy.PolicyState;
import io.healthmesh.edge.routing.PlanBuilder;
import io.healthmesh.edge.rules.DnsConfigRules;
import io.healthmesh.edge.rules.PolicyRules;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * What an edge has read from the topics, kept by the one thread that follows them and turned
 * into an immutable {@link Snapshot} on demand. A snapshot costs in proportion to what changed
 * since the one before: a health change re-plans only the record sets that check that target, a
 * record set only itself, a zone only its own record sets; everything else is shared.
 */
public final class EdgeState {
  private static final Logger LOG = LoggerFactory.getLogger(EdgeState.class);

  /**
   * A configuration record that broke a rule and was not taken.
   *
   * @param inForce the version that stays in force, null when there is none
   * @param inForceOffset its offset on the record's partition; -1 when there is none
   */
  public record Rejection(List<String> problems, Object inForce, long inForceOffset) {}

  private final Versions<ManagedZone> zones = new Versions<>();
  private final Versions<ResourceRecordSet> recordSets = new Versions<>();
  private final Versions<ForwardingRule> forwardingRules = new Versions<>();
  private final HealthTable health = new HealthTable();
  private final Expiries expiries = new Expiries();
  private final LongSupplier clock;
  private final UnknownCounts unknownCounts = new UnknownCounts();
  private long planningAt;
  private String planning;
  private final Map<String, Long> offsets = new HashMap<>();
  private final KeyIndex<Target> dependents = new KeyIndex<>();
  private final KeyIndex<String> byZone = new KeyIndex<>();
  // Replaced, not cleared, after each snapshot: clearing or iterating a hash set costs its
  // capacity, which the first whole read makes large.
  private Set<String> dirtyRecordSets = new LinkedHashSet<>();
  private Set<String> dirtyZones = new LinkedHashSet<>();
  private final ServedZones served = new ServedZones();
  /**
   * Record sets read before their zone whose zone, once it came, forbids them (a failover or a
   * load-balancer check in a public zone: R-FO-6, R-DNSHC-5): kept, but not served while it does.
   */
  private final Set<String> blocked = new HashSet<>();
  private final PlanBuilder.Targets targets = new PlanBuilder.Targets() {
    @Override
    public ForwardingRule forwardingRule(String name) {
      return forwardingRules.get(name);
    }

    @Override
    public HealthStatus health(EntityKind kind, String name) {
      return health.status(kind, name);
    }

    @Override
    public PlanBuilder.LastKnown lastKnown(EntityKind kind, String name) {
      return health.lastKnown(kind, name);
    }

    @Override
    public long now() {
      return planningAt;
    }

    @Override
    public void changesAt(long millis) {
      expiries.add(millis, planning);
    }
  };
  private final PolicyState policies = new PolicyState();
  private long version;
  private long rejected;

  public EdgeState() {
    this(0);
  }

  /** @param version the version of the last snapshot built before, so that SOA serials never go back */
  public EdgeState(long version) {
    this(version, System::currentTimeMillis);
  }

  /** @param clock epoch milliseconds, for how old a last known state is (R-OP-2) */
  public EdgeState(long version, LongSupplier clock) {
    this.version = version;
    this.clock = clock;
  }

  /** The version of the last snapshot built. */
  public long version() {
    return version;
  }

  /** Whether anything changed since the last snapshot. */
  public boolean changed() {
    return !dirtyRecordSets.isEmpty() || !dirtyZones.isEmpty() || policies.changed();
  }

  /** R-RP-1: a policy that breaks a rule is not taken; the previous version stays in force. */
  public Rejection responsePolicy(String name, ResponsePolicy policy, long offset) {
    return take("response policy " + name, policy == null ? List.of() : PolicyRules.responsePolicy(name, policy),
        policies.responsePolicy(name), () -> policies.responsePolicy(name, policy, offset));
  }

  /** R-RP-1: a rule that breaks a rule is not taken; the previous version stays in force. */
  public Rejection responsePolicyRule(String key, ResponsePolicyRule rule, long offset) {
    return take("response policy rule " + key, rule == null ? List.of() : PolicyRules.responsePolicyRule(key, rule),
        policies.rule(key), () -> policies.rule(key, rule, offset));
  }

  /** R-SP-1: a policy that breaks a rule is not taken; the previous version stays in force. */
  public Rejection serverPolicy(String name, ServerPolicy policy, long offset) {
    return take("server policy " + name, policy == null ? List.of() : PolicyRules.serverPolicy(name, policy),
        policies.serverPolicy(name), () -> policies.serverPolicy(name, policy, offset));
  }

  /** Takes a policy version without problems; else keeps {@code before} in force and says why. */
  private Rejection take(String what, List<String> problems, PolicyState.Kept<?> before, Runnable take) {
    if (!accepted(what, problems)) {
      return rejection(problems, before);
    }
    take.run();
    return null;
  }

  private static Rejection rejection(List<String> problems, PolicyState.Kept<?> before) {
    return before == null ? new Rejection(problems, null, -1) : new Rejection(problems, before.value(), before.offset());
  }

  /**
   * A zone version that would break record sets in force in it (making a private zone with a
   * failover public, say) is rejected: the previous version stays. A zone read for the first time
   * after its record sets cannot be compared with anything, so it is served and the record sets it
   * forbids are not, whatever order the topics were read in.
   */
  public Rejection zone(String name, ManagedZone zone) {
    return zone(name, zone, -1);
  }

  /** @return why it was not taken, or null when it was */
  public Rejection zone(String name, ManagedZone zone, long offset) {
    ManagedZone before = zones.get(name);
    List<String> problems = zone == null ? List.of() : DnsConfigRules.zone(name, zone);
    if (!accepted("zone " + name, problems)) {
      return new Rejection(problems, before, zones.offset(name));
    }
    if (Objects.equals(before, zone)) {
      zones.offset(name, zone, offset);
      return null;
    }
    // Record sets in force were checked against the version before; only these fields can change that.
    boolean sameRules = before != null && zone != null && before.getZoneType() == zone.getZoneType()
        && before.getVisibility() == zone.getVisibility() && before.getDnssecEnabled() == zone.getDnssecEnabled()
        && before.getDnssecAnySubset() == zone.getDnssecAnySubset();
    Map<String, List<String>> conflicts = zone == null || sameRules ? Map.of() : conflicts(name, zone);
    List<String> breaking = conflicts.entrySet().stream()
        .flatMap(e -> e.getValue().stream().map(p -> "record set " + e.getKey() + " in force: " + p)).toList();
    if (before != null && !breaking.isEmpty()) {
      accepted("zone " + name, breaking);
      return new Rejection(breaking, before, zones.offset(name));
    }
    zones.put(name, zone, offset);
    dirtyZones.add(name);
    for (String key : sameRules ? List.<String>of() : byZone.get(name)) {
      boolean block = conflicts.containsKey(key);
      if (block ? blocked.add(key) : blocked.remove(key)) {
        dirtyRecordSets.add(key);
        if (block) {
          accepted("record set " + key + " (read before its zone)", conflicts.get(key));
        }
      }
    }
    return null;
  }

  /** The problems each record set in force in the zone would have under {@code zone}. */
  private Map<String, List<String>> conflicts(String name, ManagedZone zone) {
    Map<String, List<String>> conflicts = new TreeMap<>();
    for (String key : byZone.get(name)) {
      List<String> problems = DnsConfigRules.policyInZone(key, recordSets.get(key), zone);
      if (!problems.isEmpty()) {
        conflicts.put(key, problems);
      }
    }
    return conflicts;
  }

  /** A record set that breaks a rule is not served; the previous valid version stays in force. */
  public Rejection recordSet(String key, ResourceRecordSet rrs, long offset) {
    List<String> problems = rrs == null ? List.of() : problems(key, rrs);
    if (!accepted("record set " + key, problems)) {
      return new Rejection(problems, recordSets.get(key), recordSets.offset(key));
    }
    blocked.remove(key);
    ResourceRecordSet before = recordSets.put(key, rrs, offset);
    List<Target> was = targets(before);
    List<Target> now = targets(rrs);
    // A new version that checks the same targets in the same zone (a TTL or weight changed: most
    // of a large apply) leaves the indexes as they are; at 100,000 record sets that is most of
    // the intake's time.
    boolean sameIndex = before != null && rrs != null && was.equals(now) && before.getZone().equals(rrs.getZone());
    if (before != null && !sameIndex) {
      was.forEach(target -> dependents.remove(target, key));
      byZone.remove(before.getZone(), key);
    }
    if (rrs != null && !sameIndex) {
      now.forEach(target -> dependents.add(target, key));
      byZone.add(rrs.getZone(), key);
    }
    dirtyRecordSets.add(key);
    return null;
  }

  private static List<Target> targets(ResourceRecordSet rrs) {
    if (rrs == null) {
      return List.of();
    }
    List<Target> targets = new ArrayList<>(2);
    PlanBuilder.checkedTargets(rrs, (kind, name) -> targets.add(new Target(kind, name)));
    return targets;
  }

  /** Its own rules, and those of the zone in force (R-FO-6, R-DNSHC-5, ...) when that is known. */
  private List<String> problems(String key, ResourceRecordSet rrs) {
    List<String> problems = DnsConfigRules.recordSet(key, rrs, null);
    ManagedZone zone = zones.get(rrs.getZone());
    if (problems.isEmpty() && zone != null) {
      problems = DnsConfigRules.policyInZone(key, rrs, zone);
    }
    return problems;
  }

  /**
   * UNKNOWN target addresses, over every record set served, that their record set counts as
   * {@code as} rather than as the default does (R-OP-2): HEALTHY on a last known state, or UNHEALTHY.
   */
  public long unknownCountedAs(HealthStatus as) {
    return unknownCounts.total(as);
  }

  /** Configuration records ignored because they broke a rule. */
  public long rejected() {
    return rejected;
  }

  private boolean accepted(String what, List<String> problems) {
    if (problems.isEmpty()) {
      return true;
    }
    rejected++;
    LOG.warn("{} rejected, the previous version stays in force: {}", what, String.join("; ", problems));
    return false;
  }

  /** A rule is known by its key, which routing and health both use as its name. */
  public Rejection forwardingRule(String name, ForwardingRule rule) {
    return forwardingRule(name, rule, -1);
  }

  /** @return why it was not taken, or null when it was */
  public Rejection forwardingRule(String name, ForwardingRule rule, long offset) {
    List<String> problems = rule == null || name.equals(rule.getName()) ? List.of()
        : List.of("name: '" + rule.getName() + "' differs from the record key '" + name + "'");
    if (!accepted("forwarding rule " + name, problems)) {
      return new Rejection(problems, forwardingRules.get(name), forwardingRules.offset(name));
    }
    if (!Objects.equals(forwardingRules.put(name, rule, offset), rule)) {
      dirtyRecordSets.addAll(dependents.get(new Target(EntityKind.FORWARDING_RULE, name)));
    }
    return null;
  }

  /** {@code status} null: the entity is gone, so its health is UNKNOWN again. @return whether it changed */
  public boolean health(EntityKind kind, String name, HealthStatus status) {
    return health(kind, name, status, null);
  }

  /**
   * @param last while {@code status} is UNKNOWN, the state the target had before and since when it
   *     is UNKNOWN (R-OP-2); null when it was never known
   */
  public boolean health(EntityKind kind, String name, HealthStatus status, PlanBuilder.LastKnown last) {
    boolean changed = health.put(kind, name, status, last);
    if (changed) {
      dirtyRecordSets.addAll(dependents.get(new Target(kind, name)));
    }
    return changed;
  }

  /**
   * Marks for planning again the record sets whose last known states have grown too old (R-OP-2).
   * @return whether there are any, so that a snapshot is due
   */
  public boolean expire() {
    boolean due = false;
    for (String key : expiries.takeDue(clock.getAsLong())) {
      if (recordSets.has(key)) {
        due |= dirtyRecordSets.add(key);
      }
    }
    return due;
  }

  public void offset(String topicPartition, long offset) {
    offsets.put(topicPartition, offset);
  }

  /** Brings the served state up to date with every change since the last snapshot. */
  public Snapshot snapshot(boolean ready) {
    version++;
    planningAt = clock.getAsLong();
    boolean zonesChanged = !dirtyZones.isEmpty();
    for (String name : dirtyZones) {
      served.rebuild(name, zones.get(name));
    }
    for (String key : dirtyRecordSets) {
      update(key);
    }
    for (String name : dirtyZones) {
      for (String key : byZone.get(name)) {
        if (!dirtyRecordSets.contains(key)) {
          served.reclaim(key);
        }
      }
    }
    dirtyZones = new LinkedHashSet<>();
    dirtyRecordSets = new LinkedHashSet<>();
    ServedZones.Served next = served.finish(version, zonesChanged);
    return new Snapshot(ready, version, next.zones(), offsets, System.currentTimeMillis(), next.wire(),
        policies.policies());
  }

  /** Plans one record set again and serves the result in its zone. */
  private void update(String key) {
    String live = DnsConfigRules.liveKey(key);
    if (!live.equals(key)) {
      update(live); // a dry run is planned with the live record set beside which it is decided (R-OP-5)
      return;
    }
    planning = key;
    RecordSetEntry entry = null;
    ServedZones.Placement placement = null;
    ResourceRecordSet rrs = blocked.contains(key) ? null : recordSets.get(key);
    if (rrs != null) {
      try {
        Name owner = Name.fromString(rrs.getName(), Name.root);
        int type = Type.value(rrs.getType());
        if (type < 0) {
          throw new TextParseException("unknown type " + rrs.getType());
        }
        String dryKey = key + DnsConfigRules.DRY_RUN;
        ResourceRecordSet dryRun = blocked.contains(dryKey) ? null : recordSets.get(dryKey);
        entry = Entries.entry(rrs, owner, type, PlanBuilder.plan(rrs, targets), recordSets.offset(key),
            served.entry(key), dryRun == null ? null
                : new RecordSetEntry.DryRun(PlanBuilder.plan(dryRun, targets), recordSets.offset(dryKey)));
        placement = new ServedZones.Placement(rrs.getZone(), new ZoneBuild.Slot(owner, type));
      } catch (TextParseException | RuntimeException e) {
        LOG.warn("record set {} left out of the snapshot: {}", key, e.toString());
      }
    }
    served.serve(key, entry, placement);
    unknownCounts.count(key, entry);
  }
}
