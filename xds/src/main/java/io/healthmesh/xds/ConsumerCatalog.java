package io.healthmesh.xds;

import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.healthmesh.config.BackendService;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.PscBackend;
import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.NegState;
import io.healthmesh.rules.ConsumerRules;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the xDS server knows from the topics: the consumer global backend services (those with
 * PSC NEGs), the forwarding rules their NEGs connect to, and the topology's failover decision of
 * each (R-CH-8). Remembers which consumers a record touched, so that only their resources are
 * rebuilt and pushed (R-XDS-5). Confined to the follower's thread.
 */
final class ConsumerCatalog {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerCatalog.class);

  private final Map<String, List<PscBackend>> consumers = new HashMap<>();
  private final Map<String, ForwardingRule> rules = new HashMap<>();
  private final Map<String, ConsumerFailover> decisions = new HashMap<>();
  private final Map<String, Set<String>> consumersByRule = new HashMap<>();
  private final Set<String> touched = new HashSet<>();
  private long rejected;

  /** A backend service's new version (null: deleted); one without PSC NEGs is no consumer. */
  void backendService(String name, BackendService value) {
    List<PscBackend> negs = value == null ? List.of() : value.getPscBackends();
    List<String> problems = ConsumerRules.pscBackends(negs);
    if (!problems.isEmpty()) {
      // The topology dead-letters it too; the version in force keeps serving (R-XDS-2).
      rejected++;
      LOG.warn("consumer backend service {} not taken, the previous version stays: {}", name, problems);
      return;
    }
    List<PscBackend> old = negs.isEmpty() ? consumers.remove(name) : consumers.put(name, List.copyOf(negs));
    if (old != null) {
      old.forEach(n -> unindex(n.getForwardingRule(), name));
    }
    negs.forEach(n -> consumersByRule.computeIfAbsent(n.getForwardingRule(), k -> new HashSet<>()).add(name));
    if (old != null || !negs.isEmpty()) {
      touched.add(name);
    }
  }

  void forwardingRule(String name, ForwardingRule value) {
    if (value == null) {
      rules.remove(name);
    } else {
      rules.put(name, value);
    }
    touched.addAll(consumersByRule.getOrDefault(name, Set.of()));
  }

  void failover(String consumer, ConsumerFailover value) {
    if (value == null) {
      decisions.remove(consumer);
    } else {
      decisions.put(consumer, value);
    }
    if (consumers.containsKey(consumer)) {
      touched.add(consumer);
    }
  }

  /** The consumers whose resources changed since the last call. */
  Set<String> drainTouched() {
    Set<String> out = Set.copyOf(touched);
    touched.clear();
    return out;
  }

  Set<String> consumers() {
    return consumers.keySet();
  }

  long rejected() {
    return rejected;
  }

  /** The consumer's localities (R-XDS-3, R-XDS-4), or null when it is none; left-out NEGs go to {@code problems}. */
  List<ConsumerResources.Locality> localities(String consumer, List<String> problems) {
    List<PscBackend> negs = consumers.get(consumer);
    return negs == null ? null : localities(negs, rules, decisions.get(consumer), problems);
  }

  /**
   * R-XDS-3 and R-XDS-4. Without a decision yet every NEG is UNKNOWN and they keep the service's
   * order, which is what R-CH-8 decides for NEGs that are all UNKNOWN.
   */
  static List<ConsumerResources.Locality> localities(List<PscBackend> negs, Map<String, ForwardingRule> rules,
      ConsumerFailover decision, List<String> problems) {
    Map<String, io.healthmesh.events.HealthStatus> states = new HashMap<>();
    List<String> active = decision == null ? List.of() : decision.getActiveRegions();
    if (decision != null) {
      for (NegState n : decision.getNegs()) {
        states.put(n.getName(), n.getStatus());
      }
    }
    List<PscBackend> ordered = new ArrayList<>();
    for (String region : active) {
      negs.stream().filter(n -> n.getRegion().equals(region)).forEach(ordered::add);
    }
    negs.stream().filter(n -> !active.contains(n.getRegion())).forEach(ordered::add);
    List<ConsumerResources.Locality> out = new ArrayList<>();
    for (PscBackend neg : ordered) {
      ForwardingRule rule = rules.get(neg.getForwardingRule());
      String problem = rule == null
          ? "pscBackends[" + neg.getNegName() + "].forwardingRule: no ForwardingRule named '" + neg.getForwardingRule()
              + "' (R-XDS-2)"
          : ConsumerRules.endpoint(neg.getNegName(), rule.getName(), rule.getIpAddress(), rule.getPort());
      if (problem != null) {
        problems.add(problem);
        continue;
      }
      io.healthmesh.events.HealthStatus state = states.getOrDefault(neg.getNegName(),
          io.healthmesh.events.HealthStatus.UNKNOWN);
      out.add(new ConsumerResources.Locality(neg.getNegName(), neg.getRegion(), rule.getIpAddress(), rule.getPort(),
          health(state, active.contains(neg.getRegion())), out.size()));
    }
    return out;
  }

  /**
   * R-XDS-3: HEALTHY and UNHEALTHY as they are; UNKNOWN as UNKNOWN, which Envoy and gRPC both
   * route to, as R-CH-8 sends traffic to UNKNOWN regions when none is HEALTHY. An UNHEALTHY NEG
   * that the decision still sends traffic to (every NEG UNHEALTHY: it fails open) is UNKNOWN, or
   * clients would send nothing anywhere.
   */
  static HealthStatus health(io.healthmesh.events.HealthStatus state, boolean active) {
    return switch (state) {
      case HEALTHY -> HealthStatus.HEALTHY;
      case UNHEALTHY -> active ? HealthStatus.UNKNOWN : HealthStatus.UNHEALTHY;
      default -> HealthStatus.UNKNOWN;
    };
  }

  private void unindex(String rule, String consumer) {
    Set<String> names = consumersByRule.get(rule);
    if (names != null && names.remove(consumer) && names.isEmpty()) {
      consumersByRule.remove(rule);
    }
  }
}
