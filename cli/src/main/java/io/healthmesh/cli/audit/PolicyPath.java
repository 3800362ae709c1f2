package io.healthmesh.cli.audit;

import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResponsePolicy;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ServerPolicy;
import io.healthmesh.edge.explain.QueryRoute;
import java.net.InetAddress;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * Which way a client's query went at an instant (R-RP-1, R-SP-1): the response-policy rule that
 * answered, the zone, a forward, or a refusal. The edge's own state and lookups decide it
 * ({@link QueryRoute}), fed the versions in force then, so an audit and an edge can never disagree.
 */
public final class PolicyPath {
  private PolicyPath() {}

  /** The edge's {@link QueryRoute.Path}, with its outcome said in a sentence. */
  public record Path(String serverPolicy, boolean inbound, String responsePolicy, String rule, String ruleBehavior,
      String zone, List<String> forwardedTo, QueryRoute.Way way, String outcome) {}

  public static Path explain(ConfigHistory config, Instant at, InetAddress client, String name) throws Exception {
    QueryRoute.Path p = QueryRoute.of(new QueryRoute.Policies(all(config, ResourceKind.MANAGED_ZONE, at,
        ManagedZone.class), all(config, ResourceKind.RESPONSE_POLICY, at, ResponsePolicy.class),
        all(config, ResourceKind.RESPONSE_POLICY_RULE, at, ResponsePolicyRule.class),
        all(config, ResourceKind.SERVER_POLICY, at, ServerPolicy.class)), client, name);
    return new Path(p.serverPolicy(), p.inbound(), p.responsePolicy(), p.rule(), p.ruleBehavior(), p.zone(),
        p.forwardedTo(), p.way(), outcome(p));
  }

  private static String outcome(QueryRoute.Path p) {
    return switch (p.way()) {
      case RULE -> "answered by response-policy rule " + p.responsePolicy() + "/" + p.rule() + " ("
          + p.ruleBehavior() + "), before any zone";
      case ZONE -> "answered by zone " + p.zone() + " (audit explain NAME TYPE tells how)";
      case REFUSED -> "REFUSED: " + (p.zone() != null ? "zone " + p.zone() + " does not admit this client, and " : "")
          + "no server policy forwards for it";
      case FORWARDED -> "forwarded by " + (p.zone() != null ? "forwarding zone " + p.zone()
          : "server policy " + p.serverPolicy()) + " to " + String.join(", ", p.forwardedTo())
          + " (within dns.forward.rate.per.client)";
    };
  }

  private static <T> Map<String, T> all(ConfigHistory config, ResourceKind kind, Instant at, Class<T> type) {
    Map<String, T> all = new HashMap<>();
    for (Map.Entry<String, SpecificRecord> e : config.all(kind, at).entrySet()) {
      all.put(e.getKey(), type.cast(e.getValue()));
    }
    return all;
  }
}
