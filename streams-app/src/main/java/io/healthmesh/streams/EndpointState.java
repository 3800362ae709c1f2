package io.healthmesh.streams;

import io.healthmesh.events.HealthStatus;

/**
 * One endpoint's state on the heap. Mutable because nearly every probe changes it (its last event
 * time at least) and the per-probe path must not allocate a record per result; {@link EndpointTable}
 * writes it to the store of its group after each change.
 */
final class EndpointState {
  static final long NOT_INDEXED = Long.MIN_VALUE;
  /** Endpoint id within its service, or the external endpoint's address. */
  final String id;
  /** {@code id} in UTF-8, as its group's stored value holds it. */
  final byte[] idUtf8;
  /** {@code service/endpoint}, or {@code /address} for an external endpoint. */
  final String key;
  HealthStatus status = HealthStatus.UNKNOWN;
  long since;
  int successes;
  int failures;
  long lastEventTime;
  /** Event time at which it goes stale without a new result; 0 once stale (R-EP-4). */
  long expiresAt;
  long version;
  /** The store entry that holds it. */
  EndpointTable.Group group;
  /** Bucket of the stale index it sits in. */
  long indexedBucket = NOT_INDEXED;
  /** Its Avro encoding within its group's stored value; null after a change. */
  byte[] encoded;

  EndpointState(String id, String key) {
    this.id = id;
    this.key = key;
    this.idUtf8 = id.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** {@code from}, under its key in the table. */
  EndpointState(EndpointState from, String key) {
    this(from.id, key);
    status = from.status;
    since = from.since;
    successes = from.successes;
    failures = from.failures;
    lastEventTime = from.lastEventTime;
    expiresAt = from.expiresAt;
    version = from.version;
  }
}
