package io.healthmesh.cli.config;

import io.healthmesh.cli.config.Resource.Ref;
import io.healthmesh.config.BackendService;
import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthSource;
import io.healthmesh.config.LoadBalancerTarget;
import io.healthmesh.config.LoadBalancerType;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.PscBackend;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.ResponsePolicy;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.ServerPolicy;
import io.healthmesh.edge.rules.DnsConfigRules;
import io.healthmesh.edge.rules.PolicyRules;
import io.healthmesh.rules.ConsumerRules;
import io.healthmesh.streams.rules.ConfigRules;
import io.healthmesh.streams.rules.DnsTargets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecord;

/**
 * Checks a change against the whole configuration it lands in: the rules (docs/rules.md) of each changed
 * resource, that every name it refers to exists, and that no resource already applied is broken
 * by it (for example a deleted backend service that a health source still names).
 */
public final class Validator {
  private final Catalog before;
  private final Catalog after;
  private final Set<Ref> changed = new HashSet<>();
  /** Built at first use by whichever thread needs it first; read-only after. */
  private final Map<Catalog, Map<String, Set<String>>> ruleIndexes =
      Collections.synchronizedMap(new IdentityHashMap<>());

  private Validator(Catalog before, List<Resource> changes) {
    this.before = before;
    this.after = before.copy();
    for (Resource change : changes) {
      after.put(change);
      changed.add(change.ref());
    }
  }

  /** Every problem of {@code changes} applied over {@code before}, as {@code origin: field: message (rule id)}. */
  public static List<String> check(Catalog before, List<Resource> changes) {
    return new Validator(before, changes).problems(changes);
  }

  /** What {@code changes} do that is allowed but worth saying, as {@code origin: field: message (rule id)}. */
  public static List<String> warnings(List<Resource> changes) {
    // side by side, as the files were read: 100,000 record sets take seconds on one core
    return changes.parallelStream()
        .filter(change -> change.kind() == ResourceKind.RESOURCE_RECORD_SET && change.value() != null)
        .flatMap(change -> DnsConfigRules.warnings((ResourceRecordSet) change.value()).stream()
            .map(w -> change.origin() + ": " + w))
        .toList();
  }

  private List<String> problems(List<Resource> changes) {
    // Each change is checked against the same finished catalogue, side by side, in file order.
    List<String> problems = new ArrayList<>(changes.parallelStream().filter(change -> change.value() != null)
        .flatMap(change -> problems(after, change.kind(), change.key(), change.value()).stream()
            .map(p -> change.origin() + ": " + p))
        .toList());
    // Only a resource that names a changed one can be broken by the change: an apply costs in
    // proportion to what it changes, not to the whole configuration.
    Set<ResourceKind> changedKinds = EnumSet.noneOf(ResourceKind.class);
    changed.forEach(ref -> changedKinds.add(ref.kind()));
    for (ResourceKind kind : ResourceKind.values()) {
      if (dependencies(kind).stream().noneMatch(changedKinds::contains)) {
        continue;
      }
      for (Map.Entry<String, SpecificRecord> e : after.all(kind).entrySet()) {
        if (changed.contains(new Ref(kind, e.getKey())) || !mayBreak(kind, e.getValue())) {
          continue;
        }
        List<String> was = problems(before, kind, e.getKey(), e.getValue());
        for (String p : problems(after, kind, e.getKey(), e.getValue())) {
          if (!was.contains(p)) {
            problems.add(new Ref(kind, e.getKey()) + " (already applied): " + p);
          }
        }
      }
    }
    return problems;
  }

  /** The kinds whose resources a resource of {@code kind} can name (itself, when its peers matter). */
  private static Set<ResourceKind> dependencies(ResourceKind kind) {
    return switch (kind) {
      case BACKEND_SERVICE -> EnumSet.of(ResourceKind.FORWARDING_RULE);
      case HEALTH_SOURCE -> EnumSet.of(ResourceKind.BACKEND_SERVICE, ResourceKind.HEALTH_AGGREGATION_POLICY);
      case COMPOSITE_HEALTH_CHECK -> EnumSet.of(ResourceKind.HEALTH_SOURCE, ResourceKind.COMPOSITE_HEALTH_CHECK,
          ResourceKind.FORWARDING_RULE);
      case FORWARDING_RULE -> EnumSet.of(ResourceKind.BACKEND_SERVICE);
      case RESOURCE_RECORD_SET -> EnumSet.of(ResourceKind.MANAGED_ZONE, ResourceKind.FORWARDING_RULE);
      case RESPONSE_POLICY_RULE -> EnumSet.of(ResourceKind.RESPONSE_POLICY, ResourceKind.RESPONSE_POLICY_RULE);
      case MANAGED_ZONE, HEALTH_AGGREGATION_POLICY, RESPONSE_POLICY, SERVER_POLICY -> EnumSet.noneOf(ResourceKind.class);
    };
  }

  /**
   * Whether a change can break this unchanged resource; a record set (of which there may be
   * 100,000) only when its zone or a forwarding rule it checks changed.
   */
  private boolean mayBreak(ResourceKind kind, SpecificRecord value) {
    if (kind != ResourceKind.RESOURCE_RECORD_SET) {
      return true;
    }
    ResourceRecordSet r = (ResourceRecordSet) value;
    return changed.contains(new Ref(ResourceKind.MANAGED_ZONE, r.getZone()))
        || loadBalancers(r.getRoutingPolicy()).anyMatch(lb -> changed.contains(new Ref(ResourceKind.FORWARDING_RULE,
            lb.getForwardingRule())));
  }

  private List<String> problems(Catalog c, ResourceKind kind, String key, SpecificRecord value) {
    return switch (kind) {
      case BACKEND_SERVICE -> backendService(c, key, (BackendService) value);
      case HEALTH_AGGREGATION_POLICY -> ConfigRules.policy(key, (HealthAggregationPolicy) value);
      case HEALTH_SOURCE -> healthSource(c, key, (HealthSource) value);
      case COMPOSITE_HEALTH_CHECK -> composite(c, key, (CompositeHealthCheck) value);
      case FORWARDING_RULE -> forwardingRule(c, key, (ForwardingRule) value);
      case MANAGED_ZONE -> DnsConfigRules.zone(key, (ManagedZone) value);
      case RESOURCE_RECORD_SET -> recordSet(c, key, (ResourceRecordSet) value);
      case RESPONSE_POLICY -> PolicyRules.responsePolicy(key, (ResponsePolicy) value);
      case RESPONSE_POLICY_RULE -> responsePolicyRule(c, key, (ResponsePolicyRule) value);
      case SERVER_POLICY -> PolicyRules.serverPolicy(key, (ServerPolicy) value);
    };
  }

  /** R-RP-1: its policy exists, and no other rule of the policy matches the same name. */
  private List<String> responsePolicyRule(Catalog c, String key, ResponsePolicyRule r) {
    List<String> problems = new ArrayList<>(PolicyRules.responsePolicyRule(key, r));
    if (c.get(ResourceKind.RESPONSE_POLICY, r.getResponsePolicy()) == null) {
      problems.add("responsePolicy: no ResponsePolicy named '" + r.getResponsePolicy() + "' (R-RP-1)");
    }
    for (String other : rulesByName(c).getOrDefault(ruleSlot(r), Set.of())) {
      if (!other.equals(r.getRuleName())) {
        problems.add("dnsName: rule '" + other + "' of the same policy already matches '" + r.getDnsName()
            + "'; one rule per name (R-RP-1)");
      }
    }
    return problems;
  }

  private static String ruleSlot(ResponsePolicyRule r) {
    return r.getResponsePolicy() + "|" + r.getDnsName().toLowerCase(Locale.ROOT);
  }

  /** Rule names by policy and matched name, built once per catalog: a policy may hold 100,000 rules. */
  private Map<String, Set<String>> rulesByName(Catalog c) {
    return ruleIndexes.computeIfAbsent(c, catalog -> {
      Map<String, Set<String>> index = new HashMap<>();
      for (ResponsePolicyRule rule : catalog.<ResponsePolicyRule>values(ResourceKind.RESPONSE_POLICY_RULE)) {
        index.computeIfAbsent(ruleSlot(rule), k -> new TreeSet<>()).add(rule.getRuleName());
      }
      return index;
    });
  }

  private static List<String> backendService(Catalog c, String key, BackendService s) {
    List<String> problems = new ArrayList<>(ConfigRules.backendService(key, s));
    for (PscBackend neg : s.getPscBackends()) {
      ForwardingRule rule = c.get(ResourceKind.FORWARDING_RULE, neg.getForwardingRule());
      if (rule == null) {
        problems.add("pscBackends[" + neg.getNegName() + "].forwardingRule: no ForwardingRule named '"
            + neg.getForwardingRule() + "' (R-CH-8)");
      } else {
        String endpoint = ConsumerRules.endpoint(neg.getNegName(), rule.getName(), rule.getIpAddress(), rule.getPort());
        if (endpoint != null) {
          problems.add(endpoint);
        }
      }
    }
    return problems;
  }

  private static List<String> healthSource(Catalog c, String key, HealthSource s) {
    BackendService service = c.get(ResourceKind.BACKEND_SERVICE, s.getBackendService());
    HealthAggregationPolicy policy = c.get(ResourceKind.HEALTH_AGGREGATION_POLICY, s.getHealthAggregationPolicy());
    List<String> problems = new ArrayList<>(ConfigRules.healthSource(key, s, service, policy));
    if (service == null && !s.getBackendService().isBlank()) {
      problems.add("backendService: no BackendService named '" + s.getBackendService() + "' (R-CH-1)");
    }
    if (policy == null && !s.getHealthAggregationPolicy().isBlank()) {
      problems.add("healthAggregationPolicy: no HealthAggregationPolicy named '" + s.getHealthAggregationPolicy()
          + "' (R-CH-1)");
    }
    return problems;
  }

  private List<String> composite(Catalog c, String key, CompositeHealthCheck chc) {
    List<HealthSource> sources = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (String name : chc.getHealthSources()) {
      HealthSource source = c.get(ResourceKind.HEALTH_SOURCE, name);
      if (source != null) {
        sources.add(source);
      } else if (c.get(ResourceKind.COMPOSITE_HEALTH_CHECK, name) != null) {
        missing.add("healthSources: '" + name + "' is a composite health check; composites cannot be nested (R-CH-6)");
      } else {
        missing.add("healthSources: no HealthSource named '" + name + "' (R-CH-3)");
      }
    }
    ForwardingRule destination = c.get(ResourceKind.FORWARDING_RULE, chc.getHealthDestination());
    List<String> problems = new ArrayList<>(ConfigRules.composite(key, chc, sources, destinationOwner(c, key, chc),
        destination));
    problems.addAll(missing);
    if (destination == null && !chc.getHealthDestination().isBlank()) {
      problems.add("healthDestination: no ForwardingRule named '" + chc.getHealthDestination() + "' (R-CH-3)");
    }
    return problems;
  }

  /**
   * R-CH-5: the first holder of a destination keeps it; a change that reuses it is the one at
   * fault. Dry runs hold none (R-OP-5).
   */
  private String destinationOwner(Catalog c, String key, CompositeHealthCheck chc) {
    if (!ConfigRules.holdsDestination(chc)) {
      return null;
    }
    boolean mine = changed.contains(new Ref(ResourceKind.COMPOSITE_HEALTH_CHECK, key));
    for (CompositeHealthCheck other : c.<CompositeHealthCheck>values(ResourceKind.COMPOSITE_HEALTH_CHECK)) {
      boolean theirs = changed.contains(new Ref(ResourceKind.COMPOSITE_HEALTH_CHECK, other.getName()));
      if (!other.getName().equals(key) && ConfigRules.holdsDestination(other)
          && other.getHealthDestination().equals(chc.getHealthDestination())
          && (mine && !theirs || mine == theirs && other.getName().compareTo(key) < 0)) {
        return other.getName();
      }
    }
    return null;
  }

  private static List<String> forwardingRule(Catalog c, String key, ForwardingRule r) {
    List<String> problems = new ArrayList<>(ConfigRules.forwardingRule(key, r));
    if (!r.getBackendService().isBlank() && c.get(ResourceKind.BACKEND_SERVICE, r.getBackendService()) == null) {
      problems.add("backendService: no BackendService named '" + r.getBackendService() + "' (R-DNSHC-1)");
    }
    return problems;
  }

  private static List<String> recordSet(Catalog c, String key, ResourceRecordSet r) {
    ManagedZone zone = c.get(ResourceKind.MANAGED_ZONE, r.getZone());
    List<String> problems = new ArrayList<>(DnsConfigRules.recordSet(key, r, zone));
    if (zone == null) {
      problems.add("zone: no ManagedZone named '" + r.getZone() + "'");
    }
    for (LoadBalancerTarget lb : loadBalancers(r.getRoutingPolicy()).toList()) {
      ForwardingRule rule = c.get(ResourceKind.FORWARDING_RULE, lb.getForwardingRule());
      if (rule == null) {
        problems.add("routingPolicy: healthCheckedTargets names no ForwardingRule '" + lb.getForwardingRule()
            + "' (R-DNSHC-1)");
      } else if (rule.getLoadBalancerType() == LoadBalancerType.none) {
        problems.add("routingPolicy: forwarding rule '" + rule.getName()
            + "' has loadBalancerType none; a health-checked target must be an internal load balancer (R-DNSHC-1)");
      }
    }
    return problems;
  }

  private static Stream<LoadBalancerTarget> loadBalancers(RoutingPolicy policy) {
    return DnsTargets.targets(policy).stream().flatMap(t -> t.getInternalLoadBalancers().stream());
  }
}
