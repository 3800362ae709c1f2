package io.healthmesh.streams.ingest;

import io.healthmesh.streams.codec.AggregateInput;
import io.healthmesh.streams.codec.AggregateInput.Kind;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Keys a configuration record {@code KIND|name} for the aggregate stage's shared input and notes
 * in headers where it was read, so a rejection can name the original topic, partition and offset.
 */
public final class OriginTagger implements Processor<String, byte[], String, byte[]> {
  private final Kind kind;
  private ProcessorContext<String, byte[]> context;

  public OriginTagger(Kind kind) {
    this.kind = kind;
  }

  @Override
  public void init(ProcessorContext<String, byte[]> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, byte[]> record) {
    RecordMetadata m = context.recordMetadata().orElseThrow();
    String name = record.key() == null ? "" : record.key();
    context.forward(record.withKey(AggregateInput.key(kind, name))
        .withHeaders(AggregateInput.withOrigin(record.headers(), m.partition(), m.offset())));
  }
}
