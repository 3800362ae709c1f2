/**
 * The Kafka side of the edge's state: follows the configuration and health-state topics from the
 * beginning into {@link io.healthmesh.edge.state.EdgeState}, publishes snapshots at a bounded pace,
 * keeps config-in-force, and says how fresh what it serves is. The only room that reads topics.
 */
package io.healthmesh.edge.follow;
