package io.healthmesh.streams.output;

import io.healthmesh.events.DeadLetter;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.RegistryUnavailableException;
import io.healthmesh.streams.codec.Origin;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/** Dead letters keep the original bytes and where they came from, so nothing is lost. */
public final class DeadLetters {
  private DeadLetters() {}

  public static DeadLetter of(DeadLetterReason reason, String message, Origin origin, String key, byte[] value) {
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
  public static void forward(ProcessorContext<String, Out> context, Metrics metrics, String dlq, DeadLetterReason reason,
      String message, Origin origin, String key, byte[] value) {
    metrics.deadLettered(origin.topic(), reason);
    context.forward(new Record<>(key == null ? "" : key, new Out.DeadLettered(dlq, key,
        of(reason, message, origin, key, value)), origin.timestamp()));
  }

  /**
   * Why a record that could not be decoded is a dead letter. A registry that could not be asked
   * says nothing about the record: that failure is thrown on, so the stream thread starts again
   * from its last commit and reads the record again, instead of dead-lettering good data.
   */
  public static DeadLetterReason reasonOf(AvroDeserializationException e) {
    if (e.registryFailed()) {
      throw new RegistryUnavailableException(e.getMessage(), e);
    }
    return e.reason() == AvroDeserializationException.Reason.UNKNOWN_SCHEMA_ID
        ? DeadLetterReason.UNKNOWN_SCHEMA
        : DeadLetterReason.MALFORMED;
  }
}
