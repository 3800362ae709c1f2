package io.healthmesh.streams.aggregate;

import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.codec.AggregateInput;
import io.healthmesh.streams.codec.AggregateInput.Kind;
import io.healthmesh.streams.codec.Origin;
import io.healthmesh.streams.codec.TopologySerdes;
import io.healthmesh.streams.output.Causes;
import io.healthmesh.streams.output.DeadLetters;
import io.healthmesh.streams.output.Emitter;
import io.healthmesh.streams.output.Metrics;
import io.healthmesh.streams.output.Out;
import io.healthmesh.streams.output.PromptCommit;
import io.healthmesh.streams.output.Publisher;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The aggregate stage (docs/rules.md sections 2 and 3, health of DNS targets): one partition that sees
 * every service snapshot and the small configuration tables. Each input is applied to its table
 * by its kind (the key's tag), then exactly the entities that depend on it are re-evaluated.
 */
public final class AggregateProcessor implements Processor<String, byte[], String, Out> {
  private final TopologySerdes serdes;
  private final Metrics metrics;
  private final PromptCommit.Timing commits;
  private ProcessorContext<String, Out> context;
  private PromptCommit prompt;
  private ConfigChanges changes;
  private Dependents dependents;

  public AggregateProcessor(TopologySerdes serdes, Metrics metrics, PromptCommit.Timing commits) {
    this.serdes = serdes;
    this.metrics = metrics;
    this.commits = commits;
  }

  @Override
  public void init(ProcessorContext<String, Out> context) {
    this.context = context;
    prompt = new PromptCommit(context, commits);
    Emitter emitter = new Emitter(context, metrics, prompt);
    Publisher publisher = new Publisher(context, AggregateStores.PUBLISHED, emitter);
    Tables tables = new Tables(context);
    changes = new ConfigChanges(serdes, tables, publisher);
    dependents = new Dependents(tables, publisher, new ConsumerFailovers(context, tables, publisher, emitter), metrics);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    prompt.processed(record.timestamp());
    Kind kind = AggregateInput.kindOf(record.key());
    String name = AggregateInput.nameOf(record.key());
    Instant time = Instant.ofEpochMilli(record.timestamp());
    Affected affected = new Affected();
    if (kind == Kind.SERVICE) {
      ServiceSnapshot snapshot = serdes.snapshot(record.value());
      Origin origin = new Origin(snapshot.getTriggerTopic() == null ? "" : snapshot.getTriggerTopic(),
          orMinusOne(snapshot.getTriggerPartition()), orMinusOne(snapshot.getTriggerOffset()), record.timestamp());
      changes.service(name, snapshot, time, affected);
      dependents.evaluate(affected, Causes.of(serviceReason(origin), origin), time);
      return;
    }
    Origin origin = AggregateInput.originOf(record.headers(), kind, record.timestamp());
    List<String> problems;
    try {
      problems = changes.config(kind, name, record.value(), origin.offset(), affected);
    } catch (AvroDeserializationException e) {
      deadLetter(DeadLetters.reasonOf(e), e.at(origin.partition(), origin.offset()).getMessage(), origin, name, record.value());
      return;
    }
    if (!problems.isEmpty()) {
      deadLetter(DeadLetterReason.INVALID, kind + " " + name + " rejected, previous version stays: "
          + String.join("; ", problems), origin, name, record.value());
      return;
    }
    TransitionReason reason = record.value() == null ? TransitionReason.CONFIG_DELETED
        : kind == Kind.POLICY ? TransitionReason.POLICY_CHANGE : TransitionReason.MEMBERSHIP_CHANGE;
    dependents.evaluate(affected, Causes.of(reason, origin), time);
  }

  private static TransitionReason serviceReason(Origin origin) {
    if (Topics.BACKEND_SERVICES.name().equals(origin.topic())) {
      return TransitionReason.MEMBERSHIP_CHANGE;
    }
    return origin.offset() < 0 ? TransitionReason.STALE : TransitionReason.MEMBER_STATE;
  }

  private void deadLetter(DeadLetterReason reason, String message, Origin origin, String key, byte[] value) {
    DeadLetters.forward(context, metrics, Topics.CONFIG_DLQ.name(), reason, message, origin, key, value);
  }

  private static int orMinusOne(Integer value) {
    return value == null ? -1 : value;
  }

  private static long orMinusOne(Long value) {
    return value == null ? -1 : value;
  }
}
