/**
 * The aggregate stage (docs/rules.md sections 2 and 3): services, health sources, composites and
 * consumer failover in one partition, each input followed to what depends on it through reverse
 * indexes ({@link io.healthmesh.streams.aggregate.Tables}).
 */
package io.healthmesh.streams.aggregate;
