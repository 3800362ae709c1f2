package io.healthmesh.streams;

import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.DeadLetter;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthTransition;

/** What the processors emit; the topology routes each kind to its topic. */
sealed interface Out {
  /** A new current state; {@code state} null deletes the entity (tombstone). */
  record State(EntityKey key, HealthState state) implements Out {}

  record Transition(EntityKey key, HealthTransition transition) implements Out {}

  record DeadLettered(String topic, String key, DeadLetter letter) implements Out {}

  /** Input for the aggregate stage, already framed for its repartition topic. */
  record ForAggregates(String key, byte[] value) implements Out {}

  record Failover(String consumer, ConsumerFailover decision) implements Out {}

  /** For the per-service stage: a record set's use of an external endpoint, framed. */
  record ExternalRef(String address, byte[] value) implements Out {}
}
