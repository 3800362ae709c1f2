package io.healthmesh.cli.audit;

import io.healthmesh.cli.config.ResourceKind;
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
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.xbill.DNS.Name;

/**
 * Which way a client's query went at an instant (R-RP-1, R-SP-1): the response-policy rule that
 * answered, the zone, a forward, or a refusal. The edge's own state and lookups decide it, fed
 * the versions in force then, so an audit and an edge can never disagree.
 */
public final class PolicyPath {
  private PolicyPath() {}

  /** What answered. */
  public enum Way { RULE, ZONE, FORWARDED, REFUSED }

  /** @param rule the rule that matched, or null; @param zone the zone that serves the name, or null */
  public record Path(String serverPolicy, boolean inbound, String responsePolicy, String rule, String ruleBehavior,
      String zone, List<String> forwardedTo, Way way, String outcome) {}

  public static Path explain(ConfigHistory config, Instant at, InetAddress client, String name) throws Exception {
    EdgeState state = new EdgeState();
    each(config, ResourceKind.MANAGED_ZONE, at, (k, v) -> state.zone(k, (ManagedZone) v, -1));
    each(config, ResourceKind.RESPONSE_POLICY, at, (k, v) -> state.responsePolicy(k, (ResponsePolicy) v, -1));
    each(config, ResourceKind.RESPONSE_POLICY_RULE, at, (k, v) -> state.responsePolicyRule(k, (ResponsePolicyRule) v, -1));
    each(config, ResourceKind.SERVER_POLICY, at, (k, v) -> state.serverPolicy(k, (ServerPolicy) v, -1));
    Snapshot snapshot = state.snapshot(true);
    Name qname = Name.fromString(name.endsWith(".") ? name : name + ".");
    Access access = snapshot.policies().access(client);
    String server = access.serverPolicy() == null ? null : access.serverPolicy().name();
    String policy = access.responsePolicy() == null ? null : access.responsePolicy().policy();
    // Shown even when it bypasses, so the reader sees why the policy did not answer.
    RuleEntry rule = access.responsePolicy() == null ? null : access.responsePolicy().match(qname);
    String ruleName = rule == null ? null : rule.ruleName();
    String behavior = rule == null ? null : rule.local().isEmpty() ? rule.behavior().name() : "localData";
    // The responder's own decision.
    Route route = snapshot.route(access, qname);
    if (route instanceof Route.ByRule) {
      return new Path(server, access.inbound(), policy, ruleName, behavior, null, List.of(), Way.RULE,
          "answered by response-policy rule " + policy + "/" + ruleName + " (" + behavior + "), before any zone");
    }
    if (route instanceof Route.ByZone byZone) {
      String zoneName = byZone.zone().config().getName();
      return new Path(server, access.inbound(), policy, ruleName, behavior, zoneName, List.of(), Way.ZONE,
          "answered by zone " + zoneName + " (audit explain NAME TYPE tells how)");
    }
    if (route instanceof Route.Refused refused) {
      String zoneName = refused.zone() == null ? null : refused.zone().config().getName();
      return new Path(server, access.inbound(), policy, ruleName, behavior, zoneName, List.of(), Way.REFUSED,
          "REFUSED: " + (zoneName != null ? "zone " + zoneName + " does not admit this client, and " : "")
              + "no server policy forwards for it");
    }
    Route.Forwarded forwarded = (Route.Forwarded) route;
    String zoneName = forwarded.zone() == null ? null : forwarded.zone().config().getName();
    List<String> to = forwarded.targets().stream().map(t -> t.getAddress().getHostAddress() + ":" + t.getPort())
        .toList();
    return new Path(server, access.inbound(), policy, ruleName, behavior, zoneName, to, Way.FORWARDED,
        "forwarded by " + (zoneName != null ? "forwarding zone " + zoneName : "server policy " + server)
            + " to " + String.join(", ", to) + " (within dns.forward.rate.per.client)");
  }

  private interface Apply {
    Object apply(String key, SpecificRecord value) throws Exception;
  }

  private static void each(ConfigHistory config, ResourceKind kind, Instant at, Apply apply) throws Exception {
    for (Map.Entry<String, SpecificRecord> e : new java.util.TreeMap<>(config.all(kind, at)).entrySet()) {
      apply.apply(e.getKey(), e.getValue());
    }
  }
}
