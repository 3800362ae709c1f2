package io.healthmesh.streams;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.TransitionCause;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Publishes an aggregate entity's state only when it differs from what was last published, and a
 * transition (R-CH-9) only when its status changes, so health-state never repeats itself.
 */
final class Publisher {
  static final String PUBLISHED = "published-states";
  /** The per-service stage publishes the DNS-target health of load balancers (R-DNSHC-2/3). */
  static final String PUBLISHED_TARGETS = "published-dns-targets";

  private final ProcessorContext<String, Out> context;
  private final KeyValueStore<String, HealthState> published;
  private final Metrics metrics;
  private final PromptCommit prompt;

  Publisher(ProcessorContext<String, Out> context, Metrics metrics, String store, PromptCommit prompt) {
    this.context = context;
    this.published = context.getStateStore(store);
    this.metrics = metrics;
    this.prompt = prompt;
  }

  static String storeKey(EntityKey key) {
    return key.getKind() + "|" + key.getName();
  }

  HealthStatus statusOf(EntityKind kind, String name) {
    HealthState state = published.get(kind + "|" + name);
    return state == null ? HealthStatus.UNKNOWN : state.getStatus();
  }

  /** {@code cause} is completed with the counts; its reason and trigger are the caller's. */
  void publish(EntityKey key, HealthStatus status, Aggregation.Counts counts, String region,
      TransitionCause.Builder cause, Instant eventTime) {
    HealthState old = published.get(storeKey(key));
    HealthStatus before = old == null ? HealthStatus.UNKNOWN : old.getStatus();
    boolean statusChanged = old != null && before != status || old == null && status != HealthStatus.UNKNOWN;
    long version = old == null ? 0 : old.getVersion();
    HealthState next = HealthState.newBuilder()
        .setStatus(status)
        .setSince(statusChanged || old == null ? eventTime : old.getSince())
        .setRegion(region)
        .setHealthyCount(counts.healthy()).setUnhealthyCount(counts.unhealthy()).setUnknownCount(counts.unknown())
        .setVersion(statusChanged ? version + 1 : version)
        .setSourceOffset(statusChanged ? cause.getTriggerOffset() : old == null ? null : old.getSourceOffset())
        .setLastKnownStatus(lastKnown(status, before, old == null ? null : old.getLastKnownStatus()))
        .build();
    if (next.equals(old)) {
      return;
    }
    published.put(storeKey(key), next);
    metrics.published(eventTime);
    long timestamp = eventTime.toEpochMilli();
    context.forward(new Record<>(storeKey(key), new Out.State(key, next), timestamp));
    prompt.changed();
    if (statusChanged) {
      metrics.transition(key.getKind(), status);
      cause.setHealthyCount(counts.healthy()).setUnhealthyCount(counts.unhealthy()).setUnknownCount(counts.unknown());
      HealthTransition transition = HealthTransition.newBuilder().setEntity(key).setOldStatus(before)
          .setNewStatus(status).setEventTime(eventTime).setVersion(next.getVersion()).setCause(cause.build()).build();
      context.forward(new Record<>(storeKey(key), new Out.Transition(key, transition), timestamp));
    }
  }

  /**
   * R-OP-2: while UNKNOWN, the state it had before it became UNKNOWN (kept while it stays UNKNOWN),
   * so that an edge, even one started later, can count it as last known.
   */
  static HealthStatus lastKnown(HealthStatus status, HealthStatus before, HealthStatus lastKnownBefore) {
    if (status != HealthStatus.UNKNOWN) {
      return null;
    }
    return before != HealthStatus.UNKNOWN ? before : lastKnownBefore;
  }

  /** The entity is gone: a tombstone on health-state. */
  void delete(EntityKey key, Instant eventTime) {
    // Looked up first: a delete of what is not there still writes a tombstone to the changelog.
    if (published.get(storeKey(key)) != null) {
      published.delete(storeKey(key));
      context.forward(new Record<>(storeKey(key), new Out.State(key, null), eventTime.toEpochMilli()));
      prompt.changed();
    }
  }
}
