/**
 * The edge's in-memory model, without Kafka or sockets: what was read ({@link
 * io.healthmesh.edge.state.EdgeState}, fed by one thread) and the immutable {@link
 * io.healthmesh.edge.state.Snapshot} every query is answered from, rebuilt in proportion to what changed.
 */
package io.healthmesh.edge.state;
