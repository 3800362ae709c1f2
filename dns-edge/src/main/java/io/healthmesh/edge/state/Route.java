package io.healthmesh.edge.state;

import io.healthmesh.edge.policy.RuleEntry;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Which way a query goes (docs/rules.md section 5), as {@link Snapshot#route} decides it for the
 * responder and for {@code healthctl audit explain} alike.
 */
public sealed interface Route {
  /** A response-policy rule answers, before any zone (R-RP-1). */
  record ByRule(RuleEntry rule) implements Route {}

  /** The zone answers itself. */
  record ByZone(Zone zone) implements Route {}

  /**
   * Forwarded to {@code targets} (R-SP-1): a forwarding zone's, or, with {@code zone} null, the
   * client's server policy's alternative name servers.
   */
  record Forwarded(List<InetSocketAddress> targets, Zone zone) implements Route {}

  /** Nobody answers this client: REFUSED. {@code zone} serves the name but does not admit the client, or is null. */
  record Refused(Zone zone) implements Route {}
}
