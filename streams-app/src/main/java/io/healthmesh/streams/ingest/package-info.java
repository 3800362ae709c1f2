/**
 * Inputs put where their state lives: probes and backend services on their service's partition
 * (moved when another client's partitioner placed them elsewhere), record sets' external endpoints
 * on their address's, forwarding rules on their backend service's, configuration tagged for the
 * aggregate stage. Uses only the shared packages.
 */
package io.healthmesh.streams.ingest;
