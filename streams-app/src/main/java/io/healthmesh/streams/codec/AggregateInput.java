package io.healthmesh.streams.codec;

import io.healthmesh.schemas.Topics;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Records of the aggregate stage's single-partition input: service snapshots from the per-service
 * stage and the small configuration tables, keyed {@code KIND|name} so one topic carries them all
 * and the key is the stage's dispatch tag. Values stay bytes: a configuration record is passed on
 * as its producer wrote it, so that one that cannot be decoded is dead-lettered whole by the stage
 * that validates it; snapshots are framed by {@link TopologySerdes#frame}.
 */
public final class AggregateInput {
  /** Headers of a configuration record: where it was read. */
  private static final String ORIGIN_PARTITION = "healthmesh.origin.partition";
  private static final String ORIGIN_OFFSET = "healthmesh.origin.offset";

  public enum Kind {
    SERVICE(Topics.BACKEND_SERVICES.name()),
    POLICY(Topics.HEALTH_AGGREGATION_POLICIES.name()),
    SOURCE(Topics.HEALTH_SOURCES.name()),
    COMPOSITE(Topics.COMPOSITE_HEALTH_CHECKS.name()),
    FORWARDING_RULE(Topics.FORWARDING_RULES.name());

    public final String topic;

    Kind(String topic) {
      this.topic = topic;
    }
  }

  private AggregateInput() {}

  /** Headers for a configuration record read at {@code partition} and {@code offset}, beside its own. */
  public static Headers withOrigin(Headers own, int partition, long offset) {
    RecordHeaders headers = new RecordHeaders(own.toArray());
    headers.add(ORIGIN_PARTITION, String.valueOf(partition).getBytes(StandardCharsets.UTF_8));
    headers.add(ORIGIN_OFFSET, String.valueOf(offset).getBytes(StandardCharsets.UTF_8));
    return headers;
  }

  /** Where a configuration record of {@code kind} was read; -1 for what its headers do not say. */
  public static Origin originOf(Headers headers, Kind kind, long timestamp) {
    return new Origin(kind.topic, (int) header(headers, ORIGIN_PARTITION), header(headers, ORIGIN_OFFSET), timestamp);
  }

  private static long header(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    return h == null ? -1 : Long.parseLong(new String(h.value(), StandardCharsets.UTF_8));
  }

  public static String key(Kind kind, String name) {
    return kind.name() + "|" + name;
  }

  public static Kind kindOf(String key) {
    return Kind.valueOf(key.substring(0, key.indexOf('|')));
  }

  public static String nameOf(String key) {
    return key.substring(key.indexOf('|') + 1);
  }
}
