package io.healthmesh.schemas;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A record's bytes could not be turned into a value. Names the topic and, where the caller knew
 * them, the partition and offset, and says why in a form a dead-letter handler can store.
 */
public class AvroDeserializationException extends SerializationException {

  /** Why the bytes were refused. */
  public enum Reason {
    /** First byte is not the Confluent magic byte 0, or the record is shorter than its header. */
    BAD_MAGIC_BYTE,
    /** The registry does not know the schema id in the header. */
    UNKNOWN_SCHEMA_ID,
    /** The body ends before the writer schema is satisfied, or has bytes left over. */
    TRUNCATED,
    /** The writer schema cannot be read as the expected schema. */
    INCOMPATIBLE_SCHEMA,
    /** The registry could not be asked; retrying may succeed. */
    REGISTRY_UNAVAILABLE,
    /** The body is not valid Avro for its writer schema. */
    MALFORMED
  }

  private final Reason reason;
  private final String topic;
  private final int partition;
  private final long offset;

  public AvroDeserializationException(Reason reason, String topic, String detail, Throwable cause) {
    this(reason, topic, -1, -1L, detail, cause);
  }

  private AvroDeserializationException(Reason reason, String topic, int partition, long offset,
      String detail, Throwable cause) {
    super(describe(reason, topic, partition, offset, detail), cause);
    this.reason = reason;
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
  }

  /** The same failure, now that the caller knows where the record was. */
  public AvroDeserializationException at(int partition, long offset) {
    return new AvroDeserializationException(reason, topic, partition, offset, detail(), getCause());
  }

  public Reason reason() {
    return reason;
  }

  /** The registry, not the record, failed: reading it again later may succeed, so it is not bad data. */
  public boolean registryFailed() {
    return reason == Reason.REGISTRY_UNAVAILABLE;
  }

  public String topic() {
    return topic;
  }

  /** -1 when unknown. */
  public int partition() {
    return partition;
  }

  /** -1 when unknown. */
  public long offset() {
    return offset;
  }

  private String detail() {
    String message = getMessage();
    int colon = message.indexOf(": ");
    return colon < 0 ? message : message.substring(colon + 2);
  }

  private static String describe(Reason reason, String topic, int partition, long offset, String detail) {
    StringBuilder where = new StringBuilder("cannot deserialize record of topic ").append(topic);
    if (partition >= 0) {
      where.append(" partition ").append(partition);
    }
    if (offset >= 0) {
      where.append(" offset ").append(offset);
    }
    return where.append(" (").append(reason).append("): ").append(detail).toString();
  }
}
