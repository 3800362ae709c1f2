package io.healthmesh.streams.output;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.TransitionCause;
import java.time.Instant;
import java.util.function.Supplier;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The one place where a processor sends what it found: an entity's state with, when its status
 * moved, the transition that says why (R-CH-9), and everything else the stages hand on. Each
 * output asks for a prompt commit, so a change is not held back by exactly-once.
 */
public final class Emitter {
  private final ProcessorContext<String, Out> context;
  private final Metrics metrics;
  private final PromptCommit prompt;

  public Emitter(ProcessorContext<String, Out> context, Metrics metrics, PromptCommit prompt) {
    this.context = context;
    this.metrics = metrics;
    this.prompt = prompt;
  }

  /**
   * Sends {@code next} as the entity's state, and a transition from {@code before} when its status
   * differs; {@code cause} is asked for only then, since nearly every state keeps its status.
   */
  public void publish(EntityKey key, HealthStatus before, HealthState next, Supplier<TransitionCause> cause,
      Instant eventTime) {
    String recordKey = recordKey(key);
    long timestamp = eventTime.toEpochMilli();
    context.forward(new Record<>(recordKey, new Out.State(key, next), timestamp));
    prompt.changed();
    metrics.published(eventTime);
    if (before == next.getStatus()) {
      return;
    }
    metrics.transition(key.getKind(), next.getStatus());
    HealthTransition transition = HealthTransition.newBuilder().setEntity(key).setOldStatus(before)
        .setNewStatus(next.getStatus()).setEventTime(eventTime).setVersion(next.getVersion())
        .setCause(cause.get()).build();
    context.forward(new Record<>(recordKey, new Out.Transition(key, transition), timestamp));
  }

  /** The entity is gone: a tombstone on health-state. */
  public void delete(EntityKey key, Instant eventTime) {
    forward(recordKey(key), new Out.State(key, null), eventTime.toEpochMilli());
  }

  /** Anything else for the topology to route: a snapshot for the next stage, a failover, a reference. */
  public void forward(String key, Out out, long timestamp) {
    context.forward(new Record<>(key, out, timestamp));
    prompt.changed();
  }

  /**
   * R-OP-2: while UNKNOWN, the state it had before it became UNKNOWN (kept while it stays UNKNOWN),
   * so that an edge, even one started later, can count it as last known.
   */
  public static HealthStatus lastKnown(HealthStatus status, HealthStatus before, HealthStatus lastKnownBefore) {
    if (status != HealthStatus.UNKNOWN) {
      return null;
    }
    return before != HealthStatus.UNKNOWN ? before : lastKnownBefore;
  }

  /** {@code KIND|name}: also the key of the stores of what was published. */
  public static String recordKey(EntityKey key) {
    return recordKey(key.getKind(), key.getName());
  }

  public static String recordKey(EntityKind kind, String name) {
    return kind + "|" + name;
  }
}
