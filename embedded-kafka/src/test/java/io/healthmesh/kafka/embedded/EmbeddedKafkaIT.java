package io.healthmesh.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EmbeddedKafkaIT {

  @Test
  void createsEveryProjectTopicWithItsCleanupPolicy_whenStarted() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).start();
        Admin admin = kafka.admin()) {
      List<String> names = Topics.all().stream().map(Topic::name).toList();
      Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get();
      assertThat(topics).containsOnlyKeys(names);
      topics.values().forEach(t -> assertThat(t.partitions()).hasSize(2));

      for (Topic<?, ?> topic : Topics.all()) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic.name());
        Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
        assertThat(config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value())
            .as(topic.name())
            .isEqualTo(topic.compacted() ? "compact" : "delete");
      }
    }
  }

  @Test
  void keepsRecordsAndTopics_whenRestartedOnTheSameDataDir(@TempDir Path dir) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dir).partitions(1).start();
        KafkaProducer<String, String> producer = producer(kafka)) {
      producer.send(new ProducerRecord<>("probe-results", "k", "before restart")).get();
    }
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().dataDir(dir).partitions(1).start();
        KafkaConsumer<String, String> consumer = consumer(kafka)) {
      consumer.subscribe(List.of("probe-results"));
      Set<String> values = new java.util.HashSet<>();
      long deadline = System.currentTimeMillis() + 30_000;
      while (values.isEmpty() && System.currentTimeMillis() < deadline) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
        records.forEach(r -> values.add(r.value()));
      }
      assertThat(values).containsExactly("before restart");
      assertThat(kafka.dataDir()).isEqualTo(dir);
    }
    assertThat(dir).exists();
  }

  @Test
  void deletesItsTemporaryDirectory_whenClosed() {
    Path dir;
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().createTopics(false).start()) {
      dir = kafka.dataDir();
      assertThat(dir).exists();
    }
    assertThat(dir).doesNotExist();
  }

  private static KafkaProducer<String, String> producer(EmbeddedKafka kafka) {
    return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
        new StringSerializer(), new StringSerializer());
  }

  private static KafkaConsumer<String, String> consumer(EmbeddedKafka kafka) {
    return new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.GROUP_ID_CONFIG, "it-" + System.nanoTime(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
        new StringDeserializer(), new StringDeserializer());
  }

}
