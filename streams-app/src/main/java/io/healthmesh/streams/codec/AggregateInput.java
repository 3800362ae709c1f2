package io.healthmesh.streams.codec;

import io.healthmesh.schemas.Topics;

/**
 * Records of the aggregate stage's single-partition input: service snapshots from the per-service
 * stage and the small configuration tables, keyed {@code KIND|name} so one topic carries them all
 * and the key is the stage's dispatch tag. Values stay bytes: a configuration record is passed on
 * as its producer wrote it, so that one that cannot be decoded is dead-lettered whole by the stage
 * that validates it; snapshots are framed by {@link TopologySerdes#frame}.
 */
public final class AggregateInput {
  /** Headers of a configuration record: where it was read. */
  public static final String ORIGIN_PARTITION = "healthmesh.origin.partition";
  public static final String ORIGIN_OFFSET = "healthmesh.origin.offset";

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
