package io.healthmesh.streams.endpoint;

import io.healthmesh.events.HealthStatus;
import io.healthmesh.streams.output.Emitter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One endpoint's state on the heap. Mutable because nearly every probe changes it (its last event
 * time at least) and the per-probe path must not allocate a record per result; {@link EndpointTable}
 * writes it to the store of its group after each change.
 */
public final class EndpointState {
  static final long NOT_INDEXED = Long.MIN_VALUE;
  /** Endpoint id within its service, or the external endpoint's address. */
  final String id;
  /** {@code id} in UTF-8, as its group's stored value holds it. */
  final byte[] idUtf8;
  /** {@code service/endpoint}, or {@code /address} for an external endpoint; set when it joins the table. */
  String key;
  HealthStatus status = HealthStatus.UNKNOWN;
  /** While UNKNOWN, the state before it, as its published record says (R-OP-2); kept for interactive queries. */
  HealthStatus lastKnown;
  long since;
  int successes;
  int failures;
  long lastEventTime;
  /** Record time at which it goes stale without a new result; 0 once stale (R-EP-4). */
  long expiresAt;
  long version;
  /** A dwell or flap damping under way (R-OP-3); null for nearly every endpoint, so it costs one reference. */
  Damping damping;
  /** While one prober counts: whose results {@code successes} and {@code failures} are (R-PQ-1). */
  String prober = "";
  /**
   * Every fresh prober's own view once several count (R-PQ-1, R-PQ-2); null while one does, so a
   * single prober costs one reference and decides as it always did (R-PQ-3).
   */
  Quorum.View[] probers;
  /** The store entry that holds it. */
  EndpointTable.Group group;
  /** Bucket of the stale index it sits in. */
  long indexedBucket = NOT_INDEXED;
  /** Its Avro encoding within its group's stored value; null after a change. */
  byte[] encoded;

  EndpointState(String id) {
    this.id = id;
    this.idUtf8 = id.getBytes(StandardCharsets.UTF_8);
  }

  public HealthStatus status() {
    return status;
  }

  /** Moves to {@code next}, remembering what it was when {@code next} is UNKNOWN. */
  void moveTo(HealthStatus next) {
    if (next != status) {
      lastKnown = Emitter.lastKnown(next, status, null);
      status = next;
    }
  }

  /** Everything that is stored of it, for comparing two runs. */
  @Override
  public String toString() {
    return id + ":" + status + ":" + successes + ":" + failures + ":" + lastEventTime + ":" + version
        + (damping == null ? "" : ":" + damping.pending + ":" + Arrays.toString(damping.failures)
            + ":" + damping.suppressedUntil + ":" + damping.suppressions)
        + (prober.isEmpty() ? "" : ":" + prober) + (probers == null ? "" : ":" + Arrays.toString(probers))
        + (lastKnown == null ? "" : ":was " + lastKnown);
  }

  /** What R-OP-3 keeps of an endpoint between results; field meanings as in {@code EndpointDamping}. */
  static final class Damping {
    HealthStatus pending;
    long pendingSince;
    long[] failures = new long[0];
    long suppressedUntil;
    int suppressions;
    long lastSuppressionEnd;

    boolean idle() {
      return pending == null && failures.length == 0 && suppressedUntil == 0 && suppressions == 0;
    }
  }
}
