package io.healthmesh.edge.follow;

import java.time.Duration;

/**
 * When the edge builds a snapshot: a change waits at most {@code maxDelay} for the rest of its
 * burst, and snapshots are at least {@code minInterval} apart (so at most one in each).
 */
public record SnapshotPacing(Duration maxDelay, Duration minInterval) {}
