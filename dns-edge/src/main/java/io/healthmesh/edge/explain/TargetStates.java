package io.healthmesh.edge.explain;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;

/** What the targets a record set checks were at the instant explained. */
public interface TargetStates {
  /** An UNKNOWN target's state before it became UNKNOWN, and since when it is UNKNOWN (R-OP-2). */
  record LastKnown(HealthStatus status, long unknownSinceMillis) {}

  /** The forwarding rule in force by that name, null when there is none. */
  ForwardingRule forwardingRule(String name);

  HealthStatus health(EntityKind kind, String name);

  /** Null when the target is not UNKNOWN or was never known. */
  LastKnown lastKnown(EntityKind kind, String name);

  /** The instant explained, epoch milliseconds. */
  long now();
}
