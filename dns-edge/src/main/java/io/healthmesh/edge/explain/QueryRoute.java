package io.healthmesh.edge.explain;

import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResponsePolicy;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ServerPolicy;
import io.healthmesh.edge.policy.Access;
import io.healthmesh.edge.policy.RuleEntry;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.edge.state.Route;
import io.healthmesh.edge.state.Snapshot;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;

/**
 * Which way a client's query goes (R-RP-1, R-SP-1): a response-policy rule, a zone, a forward or a
 * refusal, as an edge's own snapshot routes it when it holds the given versions.
 */
public final class QueryRoute {
  private QueryRoute() {}

  /** What answered. */
  public enum Way { RULE, ZONE, FORWARDED, REFUSED }

  /** The versions an edge would hold, by record key. */
  public record Policies(Map<String, ManagedZone> zones, Map<String, ResponsePolicy> responsePolicies,
      Map<String, ResponsePolicyRule> responsePolicyRules, Map<String, ServerPolicy> serverPolicies) {}

  /**
   * @param rule the response-policy rule that matches the name, shown even when it does not answer
   *     (it bypasses, or a zone admits the client first), so a reader sees why; null when none matches
   * @param ruleBehavior the rule's behaviour, or {@code localData}
   * @param zone the zone that serves the name, or null
   * @param forwardedTo {@code address:port} of each target, when forwarded
   */
  public record Path(String serverPolicy, boolean inbound, String responsePolicy, String rule, String ruleBehavior,
      String zone, List<String> forwardedTo, Way way) {}

  /** Versions an edge would reject (docs/rules.md) are left out, as an edge leaves them out. */
  public static Path of(Policies policies, InetAddress client, String name) throws TextParseException {
    EdgeState state = new EdgeState();
    new TreeMap<>(policies.zones()).forEach((k, v) -> state.zone(k, v, -1));
    new TreeMap<>(policies.responsePolicies()).forEach((k, v) -> state.responsePolicy(k, v, -1));
    new TreeMap<>(policies.responsePolicyRules()).forEach((k, v) -> state.responsePolicyRule(k, v, -1));
    new TreeMap<>(policies.serverPolicies()).forEach((k, v) -> state.serverPolicy(k, v, -1));
    Snapshot snapshot = state.snapshot(true);
    Name qname = Name.fromString(name.endsWith(".") ? name : name + ".");
    Access access = snapshot.policies().access(client);
    String server = access.serverPolicy() == null ? null : access.serverPolicy().name();
    String policy = access.responsePolicy() == null ? null : access.responsePolicy().policy();
    RuleEntry rule = access.responsePolicy() == null ? null : access.responsePolicy().match(qname);
    String ruleName = rule == null ? null : rule.ruleName();
    String behavior = rule == null ? null : rule.local().isEmpty() ? rule.behavior().name() : "localData";
    Route route = snapshot.route(access, qname);
    if (route instanceof Route.ByRule) {
      return new Path(server, access.inbound(), policy, ruleName, behavior, null, List.of(), Way.RULE);
    }
    if (route instanceof Route.ByZone byZone) {
      return new Path(server, access.inbound(), policy, ruleName, behavior, byZone.zone().config().getName(),
          List.of(), Way.ZONE);
    }
    if (route instanceof Route.Refused refused) {
      return new Path(server, access.inbound(), policy, ruleName, behavior,
          refused.zone() == null ? null : refused.zone().config().getName(), List.of(), Way.REFUSED);
    }
    Route.Forwarded forwarded = (Route.Forwarded) route;
    List<String> to = forwarded.targets().stream().map(t -> t.getAddress().getHostAddress() + ":" + t.getPort())
        .toList();
    return new Path(server, access.inbound(), policy, ruleName, behavior,
        forwarded.zone() == null ? null : forwarded.zone().config().getName(), to, Way.FORWARDED);
  }
}
