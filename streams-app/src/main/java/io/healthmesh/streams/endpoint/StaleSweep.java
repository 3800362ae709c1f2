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

  /** Endpoints whose last result is older than their staleAfter, by event time. */
  private void expire(long now) {
    for (EndpointState state : endpoints.dueAt(now)) {
      long expiry = state.expiresAt;
      HealthStatus before = state.status;
      boolean changed = EndpointStateMachine.stale(state);
      endpoints.save(state);
      metrics.stale();
      int slash = state.key.indexOf('/');
      Owners.Owner owner = owners.of(state.key.substring(0, slash), state.key.substring(slash + 1));
      if (changed && owner != null) {
        Instant at = Instant.ofEpochMilli(expiry);
        publisher.publish(owner, before, state, null, null, at);
        if (owner.config() != null) {
          counts.changed(owner.config(), at, new Origin(Topics.PROBE_RESULTS.name(), -1, -1, expiry));
        }
      }
    }
  }
}
