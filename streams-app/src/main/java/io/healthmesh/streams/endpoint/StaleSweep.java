package io.healthmesh.streams.endpoint;

import io.healthmesh.events.HealthStatus;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.codec.Origin;
import io.healthmesh.streams.output.Metrics;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Staleness (R-EP-4) runs on the record times of probe results and heartbeats alone: the
 * broker's append times when {@code probe-results} has LogAppendTime (as the project creates
 * it), kept in the log so that a replay sees the same. A prober's own clock, in its event
 * times, cannot age endpoints it does not probe. The task's stream time would not do:
 * configuration records share this task and carry their producers' clocks.
 */
final class StaleSweep {
  private static final String WATERMARK = "watermark";
  private final KeyValueStore<String, Long> probeClock;
  private final long checkIntervalMs;
  private final EndpointTable endpoints;
  private final Owners owners;
  private final EndpointPublisher publisher;
  private final ServiceCounts counts;
  private final Metrics metrics;
  private long watermark;
  private long lastCheck;

  StaleSweep(ProcessorContext<?, ?> context, Duration checkInterval, EndpointTable endpoints, Owners owners,
      EndpointPublisher publisher, ServiceCounts counts, Metrics metrics) {
    this.probeClock = context.getStateStore(PerServiceStores.PROBE_CLOCK);
    this.checkIntervalMs = checkInterval.toMillis();
    this.endpoints = endpoints;
    this.owners = owners;
    this.publisher = publisher;
    this.counts = counts;
    this.metrics = metrics;
    Long stored = probeClock.get(WATERMARK);
    this.watermark = stored == null ? Long.MIN_VALUE : stored;
    this.lastCheck = watermark;
  }

  /** A probe result or heartbeat with this record time was read. */
  void advance(long recordTime) {
    if (recordTime <= watermark) {
      return;
    }
    watermark = recordTime;
    if (lastCheck == Long.MIN_VALUE || watermark - lastCheck >= checkIntervalMs) {
      lastCheck = watermark;
      probeClock.put(WATERMARK, watermark);
      expire(watermark);
    }
  }

  /**
   * Endpoints whose last result is older than their staleAfter (R-EP-4), or one of whose probers'
   * views is (R-PQ-1), by record time.
   */
  private void expire(long now) {
    for (EndpointState state : endpoints.dueAt(now)) {
      expire(state, now);
    }
  }

  /**
   * R-PQ-1: a result that arrives after some prober's view of its endpoint went stale, before the
   * sweep came by, first lets that view drop out, so a decision that changes by it is said as such.
   */
  void dropOutsBefore(EndpointState state, long recordTime) {
    if (state != null && state.probers != null && state.expiresAt <= recordTime) {
      expire(state, recordTime);
    }
  }

  private void expire(EndpointState state, long now) {
    HealthStatus before = state.status;
    int slash = state.key.indexOf('/');
    Owners.Owner owner = owners.of(state.key.substring(0, slash), state.key.substring(slash + 1));
    EndpointStateMachine.Change change = EndpointStateMachine.expire(state, now, owner == null ? null : owner.spec());
    endpoints.save(state);
    if (state.expiresAt == 0) {
      metrics.stale();
    }
    if (change != null && owner != null) {
      Instant at = Instant.ofEpochMilli(state.since);
      publisher.publish(owner, before, state, change, null, at);
      if (state.status != before && owner.config() != null) {
        counts.changed(owner.config(), at, new Origin(Topics.PROBE_RESULTS.name(), -1, -1, at.toEpochMilli()));
      }
    }
  }
}
