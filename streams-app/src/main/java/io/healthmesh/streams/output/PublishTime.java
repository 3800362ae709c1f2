package io.healthmesh.streams.output;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.HealthState;
import io.healthmesh.schemas.Topics;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Stamps each state on its way to {@code health-state} with the wall-clock time it leaves the
 * topology ({@link Topics#PUBLISHED_AT_HEADER}). Only a measurement: no decision reads it, so
 * replays stay on event time (R-AUD-2). The record keeps the probe's timestamp, so an edge
 * splits the probe-to-answer time into the topology's part and its own.
 */
public final class PublishTime implements Processor<String, Out, EntityKey, HealthState> {
  private ProcessorContext<EntityKey, HealthState> context;

  @Override
  public void init(ProcessorContext<EntityKey, HealthState> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, Out> record) {
    Out.State state = (Out.State) record.value();
    Headers headers = record.headers();
    headers.remove(Topics.PUBLISHED_AT_HEADER);
    headers.add(Topics.PUBLISHED_AT_HEADER,
        Long.toString(System.currentTimeMillis()).getBytes(StandardCharsets.US_ASCII));
    context.forward(new Record<>(state.key(), state.state(), record.timestamp(), headers));
  }
}
