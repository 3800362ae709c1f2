package io.healthmesh.streams.output;

import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.DeadLetter;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.internal.ExternalEndpointRef;
import io.healthmesh.internal.ServiceSnapshot;

/** What the processors emit; the topology routes each kind to its topic or to the next stage. */
public sealed interface Out {
  /** A new current state; {@code state} null deletes the entity (tombstone). */
  record State(EntityKey key, HealthState state) implements Out {}

  record Transition(EntityKey key, HealthTransition transition) implements Out {}

  record DeadLettered(String topic, String key, DeadLetter letter) implements Out {}

  /** For the aggregate stage: a service's configuration or its endpoints' counts. */
  record Snapshot(ServiceSnapshot snapshot) implements Out {}

  record Failover(String consumer, ConsumerFailover decision) implements Out {}

  /** For the per-service stage: a record set's use of an external endpoint. */
  record ExternalRef(String address, ExternalEndpointRef ref) implements Out {}
}
