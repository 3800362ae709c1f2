package io.healthmesh.edge.forward;

import java.time.Duration;

/**
 * How an edge forwards (R-SP-1); keys in docs/components.md.
 *
 * @param timeout how long one attempt waits for its target
 * @param attempts attempts per query, over the targets in turn
 * @param maxPending queries waiting for an upstream at once; beyond it, SERVFAIL at once
 * @param ratePerClient forwarded queries a second per client address; 0 for no limit
 * @param burstPerClient how many a client may send at once above its rate
 */
public record ForwardSettings(Duration timeout, int attempts, int maxPending, int ratePerClient, int burstPerClient) {
  public static final ForwardSettings DEFAULTS = new ForwardSettings(Duration.ofMillis(1000), 3, 10_000, 100, 200);
}
