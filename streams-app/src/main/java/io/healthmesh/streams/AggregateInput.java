package io.healthmesh.streams;

import io.healthmesh.schemas.Topics;

/**
 * Records of the aggregate stage's single-partition input: service snapshots from the per-service
 * stage and the small configuration tables, keyed {@code KIND|name} so one topic carries them all.
 */
final class AggregateInput {
  static final String ORIGIN_TOPIC = "healthmesh.origin.topic";
  static final String ORIGIN_PARTITION = "healthmesh.origin.partition";
  static final String ORIGIN_OFFSET = "healthmesh.origin.offset";

  enum Kind {
    SERVICE(Topics.BACKEND_SERVICES.name()),
    POLICY(Topics.HEALTH_AGGREGATION_POLICIES.name()),
    SOURCE(Topics.HEALTH_SOURCES.name()),
    COMPOSITE(Topics.COMPOSITE_HEALTH_CHECKS.name()),
    FORWARDING_RULE(Topics.FORWARDING_RULES.name());

    final String topic;

    Kind(String topic) {
      this.topic = topic;
    }
  }

  private AggregateInput() {}

  static String key(Kind kind, String name) {
    return kind.name() + "|" + name;
  }

  static Kind kindOf(String key) {
    return Kind.valueOf(key.substring(0, key.indexOf('|')));
  }

  static String nameOf(String key) {
    return key.substring(key.indexOf('|') + 1);
  }
}
