package io.healthmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

class TopicCreatorTest {
  private final TopicCreator creator = new TopicCreator(3, (short) 1);

  @Test
  void keepsTheAuditTrailAndConfigurationRejectionsForever_andOtherEventsAWeek() {
    assertThat(creator.newTopic(Topics.HEALTH_TRANSITIONS).configs()).containsEntry(TopicConfig.RETENTION_MS_CONFIG, "-1");
    assertThat(creator.newTopic(Topics.CONFIG_DLQ).configs()).containsEntry(TopicConfig.RETENTION_MS_CONFIG, "-1");
    assertThat(creator.newTopic(Topics.PROBE_RESULTS_DLQ).configs())
        .containsEntry(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(7L * 24 * 3600 * 1000));
  }

  @Test
  void compactsStateAndTheVersionsInForce() {
    assertThat(creator.newTopic(Topics.CONFIG_IN_FORCE).configs())
        .containsEntry(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
  }
}
