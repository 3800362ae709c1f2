package io.healthmesh.edge.routing;

import io.healthmesh.events.DecisionReason;
import java.util.List;

/**
 * What the engine chose and why (R-DNSHC-6).
 *
 * @param bucket the chosen item's label; {@code backup/geo[...]} for a failover's backup
 * @param reason the rule that decided
 * @param answer rrdatas to return, already in random order (R-DNS-4)
 * @param considered the chosen item's addresses with their health, for health-check logging
 */
public record Decision(String bucket, DecisionReason reason, List<String> answer, List<Address> considered) {

  /** Addresses returned only because their health is unknown (fail-open on missing state). */
  public long unknownReturned() {
    return considered.stream().filter(a -> a.unknown() && answer.contains(a.rrdata())).count();
  }
}
