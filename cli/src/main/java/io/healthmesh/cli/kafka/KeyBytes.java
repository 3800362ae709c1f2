package io.healthmesh.cli.kafka;

import java.util.Arrays;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A record's key as a map's key, compared as bytes, for reads that keep records by key without
 * decoding it. A {@code ByteBuffer}'s hash and equality read one byte per call: that was a fifth of
 * the reading threads' samples in a read of 500,000 records (docs/benchmarks.md, "Reading past
 * what was replaced").
 */
public record KeyBytes(byte[] bytes) {
  /** The record's key; a record without one gets the empty key. */
  public static KeyBytes of(ConsumerRecord<byte[], ?> r) {
    return new KeyBytes(r.key() == null ? new byte[0] : r.key());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyBytes k && Arrays.equals(bytes, k.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }
}
