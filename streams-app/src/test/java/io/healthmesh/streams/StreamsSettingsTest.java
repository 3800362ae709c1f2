package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class StreamsSettingsTest {
  @Test
  void pollsAsOftenAsItPromptsCommits() {
    Properties p = new Properties();
    p.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, "127.0.0.1:9092");
    p.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, "http://127.0.0.1:8081");
    assertThat(StreamsSettings.from(p).streamsProperties().get(StreamsConfig.POLL_MS_CONFIG)).isEqualTo(10L);
    p.setProperty(StreamsSettings.CHANGE_COMMIT_MS, "500");
    assertThat(StreamsSettings.from(p).streamsProperties().get(StreamsConfig.POLL_MS_CONFIG)).isEqualTo(100L);
    p.setProperty("streams." + StreamsConfig.POLL_MS_CONFIG, "50");
    assertThat(StreamsSettings.from(p).streamsProperties().get(StreamsConfig.POLL_MS_CONFIG)).isEqualTo("50");
  }
}
