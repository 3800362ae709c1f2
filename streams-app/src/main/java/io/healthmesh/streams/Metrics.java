package io.healthmesh.streams;

import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The topology's own counters (Prometheus names once exported: healthmesh_..._total). */
final class Metrics {
  private final MeterRegistry registry;
  private final Counter applied;
  private final Counter outOfOrder;
  private final Counter stale;
  private final Counter heartbeats;

  Metrics(MeterRegistry registry) {
    this.registry = registry;
    this.applied = registry.counter("healthmesh.probes.applied");
    this.outOfOrder = registry.counter("healthmesh.probes.ignored", "reason", "out_of_order");
    this.stale = registry.counter("healthmesh.endpoints.stale");
    this.heartbeats = registry.counter("healthmesh.probes.heartbeats");
  }

  void applied() {
    applied.increment();
  }

  void outOfOrder() {
    outOfOrder.increment();
  }

  void stale() {
    stale.increment();
  }

  void heartbeat() {
    heartbeats.increment();
  }

  void deadLettered(String topic, DeadLetterReason reason) {
    registry.counter("healthmesh.dead.letters", "topic", topic, "reason", reason.name()).increment();
  }

  void transition(EntityKind kind, HealthStatus to) {
    registry.counter("healthmesh.transitions", "kind", kind.name(), "to", to.name()).increment();
  }

  MeterRegistry registry() {
    return registry;
  }
}
