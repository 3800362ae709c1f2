package io.healthmesh.streams;

import io.healthmesh.events.DeadLetter;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.schemas.AvroDeserializationException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/** Dead letters keep the original bytes and where they came from, so nothing is lost. */
final class DeadLetters {
  private DeadLetters() {}

  static DeadLetter of(DeadLetterReason reason, String message, Origin origin, String key, byte[] value) {
    return DeadLetter.newBuilder()
        .setReason(reason)
        .setMessage(message)
        .setSourceTopic(origin.topic())
        .setSourcePartition(origin.partition())
        .setSourceOffset(origin.offset())
        .setSourceTimestamp(Instant.ofEpochMilli(origin.timestamp()))
        .setKey(key == null ? null : ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)))
        .setValue(value == null ? null : ByteBuffer.wrap(value))
        .build();
  }

  /** Counts the rejection and sends the record, whole, to {@code dlq}. */
  static void forward(ProcessorContext<String, Out> context, Metrics metrics, String dlq, DeadLetterReason reason,
      String message, Origin origin, String key, byte[] value) {
    metrics.deadLettered(origin.topic(), reason);
    context.forward(new Record<>(key == null ? "" : key, new Out.DeadLettered(dlq, key,
        of(reason, message, origin, key, value)), origin.timestamp()));
  }

  static DeadLetterReason reasonOf(AvroDeserializationException e) {
    return e.reason() == AvroDeserializationException.Reason.UNKNOWN_SCHEMA_ID
        ? DeadLetterReason.UNKNOWN_SCHEMA
        : DeadLetterReason.MALFORMED;
  }

  /** Where an input record was read. */
  record Origin(String topic, int partition, long offset, long timestamp) {}
}
