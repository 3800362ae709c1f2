package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
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

  private static Properties required() {
    Properties p = new Properties();
    p.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, "127.0.0.1:9092");
    p.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, "http://127.0.0.1:8081");
    return p;
  }

  @Test
  void instanceIdMakesTheMainConsumerAStaticMember() {
    Properties p = required();
    String key = StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
    assertThat(StreamsSettings.from(p).streamsProperties()).doesNotContainKey(key);
    p.setProperty(StreamsSettings.INSTANCE_ID, "topology-0");
    assertThat(StreamsSettings.from(p).streamsProperties().get(key)).isEqualTo("topology-0");
  }

  @Test
  void rejectsAnInstanceIdThatIsNoName_listingEveryProblem() {
    Properties p = required();
    p.setProperty(StreamsSettings.INSTANCE_ID, "has space");
    p.setProperty(StreamsSettings.FAILURE_DETECTION_MS, "5");
    assertThatThrownBy(() -> StreamsSettings.from(p)).hasMessageContaining(StreamsSettings.INSTANCE_ID)
        .hasMessageContaining(StreamsSettings.FAILURE_DETECTION_MS);
  }
}
