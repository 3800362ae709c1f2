package io.healthmesh.cli.probe;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Whether the prober's records reach the broker, for readiness ("checking and publishing"). A
 * broker that is away refuses nothing: its sends fail only at the producer's delivery timeout,
 * two minutes later. So the prober is not publishing once records have been sent and none has been
 * acknowledged for the stall time; heartbeats go every second, so a working prober is acknowledged
 * far more often than that.
 */
final class Publishing {
  private final long stallNanos;
  private final LongSupplier nanoClock;
  private volatile long lastSent;
  private volatile long lastAcked;
  private volatile String lastError;

  Publishing(Duration stall, LongSupplier nanoClock) {
    this.stallNanos = stall.toNanos();
    this.nanoClock = nanoClock;
    this.lastAcked = nanoClock.getAsLong();
    this.lastSent = lastAcked;
  }

  void sent() {
    lastSent = nanoClock.getAsLong();
  }

  void acked() {
    lastAcked = nanoClock.getAsLong();
    lastError = null;
  }

  void failed(Exception e) {
    lastError = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  /** Why the prober is not publishing, or null while the broker acknowledges what it sends. */
  String stalled() {
    long acked = lastAcked;
    long quiet = nanoClock.getAsLong() - acked;
    if (lastSent - acked <= 0 || quiet < stallNanos) {
      return null;
    }
    String error = lastError;
    return "nothing published for " + Duration.ofNanos(quiet).toSeconds() + " s: the broker acknowledged no result or"
        + " heartbeat sent since" + (error == null ? "" : " (last error: " + error + ")");
  }
}
