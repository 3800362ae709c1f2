package io.healthmesh.edge.state;

import io.healthmesh.edge.routing.PlanBuilder;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The health of every entity routing reads, as health-state says it, and for the UNKNOWN ones
 * that were known before, what they were (R-OP-2).
 */
final class HealthTable {
  // By kind, then name: no key object per entity, which at 1,000,000 entities is 24 MB.
  private final Map<EntityKind, Map<String, HealthStatus>> health = new EnumMap<>(EntityKind.class);
  /** Only targets that are UNKNOWN and were known before (R-OP-2): few, so keyed by object. */
  private final Map<Target, PlanBuilder.LastKnown> lastKnown = new HashMap<>();

  HealthStatus status(EntityKind kind, String name) {
    return health.getOrDefault(kind, Map.of()).getOrDefault(name, HealthStatus.UNKNOWN);
  }

  PlanBuilder.LastKnown lastKnown(EntityKind kind, String name) {
    return lastKnown.isEmpty() ? null : lastKnown.get(new Target(kind, name));
  }

  /**
   * @param status null when the entity is gone
   * @param last while {@code status} is UNKNOWN, what it was before and since when; else ignored
   * @return whether routing may now decide differently
   */
  boolean put(EntityKind kind, String name, HealthStatus status, PlanBuilder.LastKnown last) {
    Map<String, HealthStatus> ofKind = health.computeIfAbsent(kind, k -> new HashMap<>());
    boolean changed = (status == null ? ofKind.remove(name) : ofKind.put(name, status)) != status;
    PlanBuilder.LastKnown kept = status == HealthStatus.UNKNOWN ? last : null;
    if (kept != null || !lastKnown.isEmpty()) {
      Target target = new Target(kind, name);
      changed |= !Objects.equals(kept == null ? lastKnown.remove(target) : lastKnown.put(target, kept), kept);
    }
    return changed;
  }
}
