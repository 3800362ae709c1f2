package io.healthmesh.rules;

import io.healthmesh.config.PscBackend;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * R-XDS-2: what a consumer backend service's PSC NEGs must be for a load balancer to act on them.
 * One implementation for healthctl, the topology and the xDS server alike.
 */
public final class ConsumerRules {
  private ConsumerRules() {}

  /** Every problem of a consumer's PSC NEGs: names and forwarding rules given, NEG names and regions unique. */
  public static List<String> pscBackends(List<PscBackend> negs) {
    List<String> problems = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Map<String, String> regions = new HashMap<>();
    for (PscBackend neg : negs) {
      String field = "pscBackends[" + neg.getNegName() + "]";
      if (neg.getNegName().isBlank() || neg.getNegName().contains("/")) {
        problems.add("pscBackends: NEG name '" + neg.getNegName() + "' must be non-empty and without '/' (R-XDS-2)");
      } else if (!names.add(neg.getNegName())) {
        problems.add("pscBackends: NEG '" + neg.getNegName() + "' appears twice (R-XDS-2)");
      }
      if (neg.getRegion().isBlank()) {
        problems.add(field + ".region: required; a NEG is one region's locality (R-XDS-2)");
      } else {
        String other = regions.putIfAbsent(neg.getRegion(), neg.getNegName());
        if (other != null) {
          problems.add(field + ".region: NEG '" + other + "' already serves " + neg.getRegion()
              + "; one NEG per region, as failover goes from region to region (R-XDS-2)");
        }
      }
      if (neg.getForwardingRule().isBlank()) {
        problems.add(field + ".forwardingRule: required (R-XDS-2)");
      }
    }
    return problems;
  }

  /** The problem of the forwarding rule a NEG connects to, or null: an endpoint needs an address and a port. */
  public static String endpoint(String negName, String forwardingRule, String ipAddress, Integer port) {
    if (ipAddress == null || ipAddress.isBlank()) {
      return "pscBackends[" + negName + "].forwardingRule: '" + forwardingRule + "' has no address (R-XDS-2)";
    }
    if (port == null || port < 1 || port > 65535) {
      return "pscBackends[" + negName + "].forwardingRule: '" + forwardingRule
          + "' serves all ports; a load balancer endpoint needs the rule's port (R-XDS-2)";
    }
    return null;
  }
}
