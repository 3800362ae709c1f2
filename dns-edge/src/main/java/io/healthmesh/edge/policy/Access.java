package io.healthmesh.edge.policy;

import java.net.InetAddress;

/**
 * Who a query comes from, as the policies see it: the server policy that covers the client (or
 * null), whether the client is admitted only by that policy's inbound forwarding (then it stands
 * for the policy's networks), and the response policy that applies to it (or null).
 */
public record Access(InetAddress client, ServerPolicyView serverPolicy, boolean inbound, RuleTable responsePolicy) {

  /** The networks a private zone must overlap to answer this client; only for an inbound client. */
  public Networks standsFor() {
    return serverPolicy.networks();
  }

  /** Whether names outside the managed zones may be forwarded for this client. */
  public boolean forwards() {
    return serverPolicy != null && !serverPolicy.alternatives().isEmpty();
  }
}
