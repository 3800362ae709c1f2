package io.healthmesh.streams.output;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.TransitionCause;
import io.healthmesh.streams.rules.Aggregation;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Publishes an aggregate entity's state only when it differs from what was last published, and a
 * transition (R-CH-9) only when its status changes, so health-state never repeats itself.
 */
public final class Publisher {
  private final KeyValueStore<String, HealthState> published;
  private final Emitter emitter;

  /** @param store the store of what this stage last published, by {@link Emitter#recordKey} */
  public Publisher(ProcessorContext<String, Out> context, String store, Emitter emitter) {
    this.published = context.getStateStore(store);
    this.emitter = emitter;
  }

  public HealthStatus statusOf(EntityKind kind, String name) {
    HealthState state = published.get(Emitter.recordKey(kind, name));
    return state == null ? HealthStatus.UNKNOWN : state.getStatus();
  }

  /** {@code cause} is completed with the counts; its reason and trigger are the caller's. */
  public void publish(EntityKey key, HealthStatus status, Aggregation.Counts counts, String region,
      TransitionCause.Builder cause, Instant eventTime) {
    String storeKey = Emitter.recordKey(key);
    HealthState old = published.get(storeKey);
    HealthStatus before = old == null ? HealthStatus.UNKNOWN : old.getStatus();
    boolean statusChanged = before != status;
    long version = old == null ? 0 : old.getVersion();
    HealthState next = HealthState.newBuilder()
        .setStatus(status)
        .setSince(statusChanged || old == null ? eventTime : old.getSince())
        .setRegion(region)
        .setHealthyCount(counts.healthy()).setUnhealthyCount(counts.unhealthy()).setUnknownCount(counts.unknown())
        .setVersion(statusChanged ? version + 1 : version)
        .setSourceOffset(statusChanged ? cause.getTriggerOffset() : old == null ? null : old.getSourceOffset())
        .setLastKnownStatus(Emitter.lastKnown(status, before, old == null ? null : old.getLastKnownStatus()))
        .build();
    if (next.equals(old)) {
      return;
    }
    published.put(storeKey, next);
    emitter.publish(key, before, next, () -> cause.setHealthyCount(counts.healthy())
        .setUnhealthyCount(counts.unhealthy()).setUnknownCount(counts.unknown()).build(), eventTime);
  }

  /** The entity is gone: a tombstone on health-state. */
  public void delete(EntityKey key, Instant eventTime) {
    // Looked up first: a delete of what is not there still writes a tombstone to the changelog.
    String storeKey = Emitter.recordKey(key);
    if (published.get(storeKey) != null) {
      published.delete(storeKey);
      emitter.delete(key, eventTime);
    }
  }
}
