package io.healthmesh.edge.policy;

import java.net.InetAddress;
import java.util.List;
import java.util.function.Supplier;
import org.xbill.DNS.Name;

/**
 * The response and server policies a snapshot answers with (R-RP-1, R-SP-1), immutable. Few
 * policies, many rules: finding the policies of a client scans the policies' networks, and the
 * rules are looked up by name in the policy's {@link RuleTable}.
 */
public record Policies(List<Attached> responsePolicies, List<ServerPolicyView> serverPolicies) {
  public static final Policies NONE = new Policies(List.of(), List.of());

  /** A response policy and the networks it is attached to. */
  public record Attached(Networks networks, RuleTable rules) {}

  public Policies {
    responsePolicies = List.copyOf(responsePolicies);
    serverPolicies = List.copyOf(serverPolicies);
  }

  /** No policy at all: every query is the zones' alone. */
  public boolean isEmpty() {
    return responsePolicies.isEmpty() && serverPolicies.isEmpty();
  }

  /**
   * Whether the policies leave this query to the zones as they are, so the fast path may answer
   * it: no server policy logs or admits the client inbound, and no rule of its response policy
   * matches the name. {@code name} is read only when a response policy covers the client.
   */
  public boolean leaveToZones(Access access, Supplier<Name> name) {
    if (access.serverPolicy() != null && (access.serverPolicy().logging() || access.inbound())) {
      return false;
    }
    if (access.responsePolicy() == null) {
      return true;
    }
    Name qname = name.get();
    return qname != null && access.responsePolicy().match(qname) == null;
  }

  /**
   * The policies of a client. A client in a server policy's networks is covered by it; a client
   * only in its inbound networks (with inbound forwarding on) is admitted as if from its
   * networks. Where several cover a client the longest prefix wins, then the first by name.
   */
  public Access access(InetAddress client) {
    byte[] address = client.getAddress();
    ServerPolicyView server = null;
    boolean inbound = false;
    int best = -1;
    for (ServerPolicyView p : serverPolicies) {
      int own = p.networks().match(address);
      if (own > best) {
        server = p;
        inbound = false;
        best = own;
      }
      int admitted = p.inbound().match(address);
      if (admitted > best) {
        server = p;
        inbound = true;
        best = admitted;
      }
    }
    RuleTable rules = null;
    best = -1;
    for (Attached a : responsePolicies) {
      int prefix = inbound ? a.networks().match(server.networks()) : a.networks().match(address);
      if (prefix > best) {
        rules = a.rules();
        best = prefix;
      }
    }
    return new Access(client, server, inbound, rules);
  }
}
