package io.healthmesh.edge.server;

import io.healthmesh.edge.forward.ClientRateLimit;
import io.healthmesh.edge.forward.Forwarder;
import java.net.InetAddress;

/**
 * What the responder forwards with (R-SP-1): the forwarder and the per-client limit, which keeps
 * an edge from being an open resolver even for the clients it serves.
 */
public record Forwarding(Forwarder forwarder, ClientRateLimit limit) {

  boolean allow(InetAddress client) {
    return limit.allow(client);
  }

  /** The longest a forwarded query can take before its caller gets SERVFAIL. */
  long budgetMillis() {
    return forwarder.settings().timeout().toMillis() * forwarder.settings().attempts() + 1000;
  }
}
