package io.healthmesh.streams.rules;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.CompositeStyle;
import io.healthmesh.config.Endpoint;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthSource;
import io.healthmesh.config.LoadBalancingScheme;
import io.healthmesh.events.EntityKind;
import io.healthmesh.net.IpAddress;
import io.healthmesh.rules.ConsumerRules;
import io.healthmesh.rules.HealthCheckRules;
import io.healthmesh.rules.ResourceNames;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Rules (docs/rules.md) checked by the topology on every configuration record, whoever produced it. Each
 * method returns every problem found, as {@code field: message (rule id)}; empty means valid.
 */
public final class ConfigRules {
  public static final int MAX_SOURCES = 10;
  private static final Set<BackendType> SOURCE_BACKEND_TYPES = Set.of(BackendType.GCE_VM_IP_PORT,
      BackendType.GCE_VM_IP, BackendType.MANAGED_INSTANCE_GROUP, BackendType.UNMANAGED_INSTANCE_GROUP);
  private static final Set<LoadBalancingScheme> SOURCE_SCHEMES =
      Set.of(LoadBalancingScheme.INTERNAL, LoadBalancingScheme.INTERNAL_MANAGED);

  private ConfigRules() {}

  public static List<String> backendService(String key, BackendService s) {
    List<String> problems = new ArrayList<>();
    name(key, s.getName(), problems);
    problems.addAll(HealthCheckRules.problems("healthCheck", s.getHealthCheck()));
    Set<String> ids = new HashSet<>();
    for (Endpoint e : s.getEndpoints()) {
      if (e.getId().isBlank() || e.getId().contains("/")) {
        problems.add("endpoints: id '" + e.getId() + "' must be non-empty and without '/' (R-EP-1)");
      } else if (!ids.add(e.getId())) {
        problems.add("endpoints: id '" + e.getId() + "' appears twice (R-EP-1)");
      }
    }
    problems.addAll(ConsumerRules.pscBackends(s.getPscBackends()));
    return problems;
  }

  public static List<String> policy(String key, HealthAggregationPolicy p) {
    List<String> problems = new ArrayList<>();
    name(key, p.getName(), problems);
    if (p.getHealthyPercentThreshold() < 0 || p.getHealthyPercentThreshold() > 100) {
      problems.add("healthyPercentThreshold: " + p.getHealthyPercentThreshold() + " is outside 0..100 (R-AGG-1)");
    }
    if (p.getMinHealthyThreshold() < 0) {
      problems.add("minHealthyThreshold: " + p.getMinHealthyThreshold() + " must be at least 0 (R-AGG-1)");
    }
    return problems;
  }

  /** {@code service} and {@code policy} are the referenced resources, null when not known yet. */
  public static List<String> healthSource(String key, HealthSource s, BackendService service, HealthAggregationPolicy policy) {
    List<String> problems = new ArrayList<>();
    name(key, s.getName(), problems);
    if (s.getBackendService().isBlank()) {
      problems.add("backendService: required (R-CH-1)");
    }
    if (s.getHealthAggregationPolicy().isBlank()) {
      problems.add("healthAggregationPolicy: required (R-CH-1)");
    }
    if (service != null) {
      if (service.getBackendType() == BackendType.PRIVATE_SERVICE_CONNECT) {
        problems.add("backendService: '" + service.getName()
            + "' takes its health from a composite check; a composite state cannot be a health source (R-CH-6)");
      } else if (!SOURCE_BACKEND_TYPES.contains(service.getBackendType())) {
        problems.add("backendService: '" + service.getName() + "' has backends of type " + service.getBackendType()
            + "; a health source needs GCE_VM_IP_PORT, GCE_VM_IP or instance groups (R-CH-2)");
      }
      if (!SOURCE_SCHEMES.contains(service.getLoadBalancingScheme())) {
        problems.add("backendService: '" + service.getName() + "' uses scheme " + service.getLoadBalancingScheme()
            + "; a health source needs INTERNAL or INTERNAL_MANAGED (R-CH-2)");
      }
      sameScope("backendService", s.getRegion(), s.getProject(), service.getRegion(), service.getProject(), problems);
    }
    if (policy != null) {
      sameScope("healthAggregationPolicy", s.getRegion(), s.getProject(), policy.getRegion(), policy.getProject(), problems);
    }
    return problems;
  }

  /**
   * @param sources the referenced sources that are known
   * @param destinationOwner another composite that already has this destination, or null
   * @param destination the destination forwarding rule, null when not known yet
   */
  public static List<String> composite(String key, CompositeHealthCheck c, List<HealthSource> sources,
      String destinationOwner, ForwardingRule destination) {
    List<String> problems = new ArrayList<>();
    name(key, c.getName(), problems);
    int count = c.getHealthSources().size();
    if (count < 1 || count > MAX_SOURCES) {
      problems.add("healthSources: " + count + " sources; a composite health check takes 1 to " + MAX_SOURCES + " (R-CH-3)");
    }
    if (new HashSet<>(c.getHealthSources()).size() != count) {
      problems.add("healthSources: a source is listed twice (R-CH-3)");
    }
    style(c, problems);
    if (c.getHealthDestination().isBlank()) {
      problems.add("healthDestination: required, the forwarding rule of a published service (R-CH-3)");
    }
    if (destinationOwner != null) {
      problems.add("healthDestination: forwarding rule '" + c.getHealthDestination()
          + "' is already the destination of composite health check '" + destinationOwner + "' (R-CH-5)");
    }
    for (HealthSource s : sources) {
      sameScope("healthSources[" + s.getName() + "]", c.getRegion(), c.getProject(), s.getRegion(), s.getProject(), problems);
    }
    if (destination != null) {
      sameScope("healthDestination", c.getRegion(), c.getProject(), destination.getRegion(), destination.getProject(), problems);
    }
    return problems;
  }

  /**
   * R-CH-5, R-OP-5: only a live composite holds its destination; any number of dry runs may sit
   * beside it, since none of them passes its state on.
   */
  public static boolean holdsDestination(CompositeHealthCheck c) {
    return !c.getDryRun();
  }

  /** R-OP-5: the kind a composite publishes its state as, apart from the live ones when it is a dry run. */
  public static EntityKind compositeKind(CompositeHealthCheck c) {
    return c.getDryRun() ? EntityKind.DRY_RUN_COMPOSITE_HEALTH_CHECK : EntityKind.COMPOSITE_HEALTH_CHECK;
  }

  /** R-OP-4: AT_LEAST_N says how many, from 1 to every source; critical sources are among the sources. */
  private static void style(CompositeHealthCheck c, List<String> problems) {
    int count = c.getHealthSources().size();
    int n = c.getMinHealthySources();
    if (c.getStyle() == CompositeStyle.AT_LEAST_N && (n < 1 || n > Math.max(count, 1))) {
      problems.add("minHealthySources: " + n + " with style AT_LEAST_N must be 1 to the number of sources, " + count
          + " (R-OP-4)");
    } else if (c.getStyle() != CompositeStyle.AT_LEAST_N && n != 0) {
      problems.add("minHealthySources: only with style AT_LEAST_N, not " + c.getStyle() + " (R-OP-4)");
    }
    Set<String> seen = new HashSet<>();
    for (String critical : c.getCriticalSources()) {
      if (!c.getHealthSources().contains(critical)) {
        problems.add("criticalSources: '" + critical + "' is not one of healthSources (R-OP-4)");
      } else if (!seen.add(critical)) {
        problems.add("criticalSources: '" + critical + "' is listed twice (R-OP-4)");
      }
    }
  }

  public static List<String> forwardingRule(String key, ForwardingRule r) {
    List<String> problems = new ArrayList<>();
    name(key, r.getName(), problems);
    if (IpAddress.parse(r.getIpAddress()) == null) {
      problems.add("ipAddress: '" + r.getIpAddress() + "' is not an IPv4 or IPv6 address (R-DNSHC-1)");
    }
    if (r.getBackendService().isBlank()) {
      problems.add("backendService: required (R-DNSHC-1)");
    }
    return problems;
  }

  private static void name(String key, String name, List<String> problems) {
    if (!key.equals(name)) {
      problems.add("name: '" + name + "' differs from the record key '" + key + "'");
    }
    String invalid = ResourceNames.problem("name", name);
    if (invalid != null) {
      problems.add(invalid);
    }
  }

  private static void sameScope(String field, String region, String project, String otherRegion,
      String otherProject, List<String> problems) {
    if (!region.equals(otherRegion) || !project.equals(otherProject)) {
      problems.add(field + ": in " + otherProject + "/" + otherRegion + ", not " + project + "/" + region
          + "; every resource of a composite health check is in one region and project (R-CH-7)");
    }
  }
}
