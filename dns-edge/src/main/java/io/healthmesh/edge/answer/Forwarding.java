package io.healthmesh.edge.answer;

import io.healthmesh.edge.forward.ClientRateLimit;
import io.healthmesh.edge.forward.Forwarder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Predicate;

/**
 * What the responder forwards with (R-SP-1): the forwarder, the per-client limit, which keeps an
 * edge from being an open resolver even for the clients it serves, and a test for the edge's own
 * address, so that a policy naming the edge itself as its upstream cannot make a query loop.
 */
public record Forwarding(Forwarder forwarder, ClientRateLimit limit, Predicate<InetSocketAddress> self) {

  public Forwarding(Forwarder forwarder, ClientRateLimit limit) {
    this(forwarder, limit, target -> false);
  }

  boolean allow(InetAddress client) {
    return limit.allow(client);
  }

  /** The targets that are not this edge; the same list when none is. */
  List<InetSocketAddress> others(List<InetSocketAddress> targets) {
    for (InetSocketAddress t : targets) {
      if (self.test(t)) {
        return targets.stream().filter(self.negate()).toList();
      }
    }
    return targets;
  }

  /** The longest a forwarded query can take before its caller gets SERVFAIL. */
  long budgetMillis() {
    return forwarder.settings().timeout().toMillis() * forwarder.settings().attempts() + 1000;
  }
}
