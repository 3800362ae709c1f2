package io.healthmesh.streams;

import io.healthmesh.config.BackendService;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;

/** What the topology's tests on a real broker write and read, through the topics' own serdes. */
final class BrokerIO {
  private BrokerIO() {}

  /**
   * The topology on {@code kafka}, started once {@code service} is configured, and returned when
   * it has read it, so that probes sent next find their endpoints.
   */
  static HealthStreamsApp topology(EmbeddedKafka kafka, SchemaRegistry registry, SchemaRegistryClient client,
      Path stateDir, String appId, BackendService service) throws Exception {
    try (KafkaProducer<String, BackendService> config = producer(kafka, Topics.BACKEND_SERVICES, client)) {
      config.send(new ProducerRecord<>(Topics.BACKEND_SERVICES.name(), service.getName(), service)).get();
    }
    Properties p = new Properties();
    p.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    p.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, registry.url());
    p.setProperty(StreamsSettings.APPLICATION_ID, appId);
    p.setProperty(StreamsSettings.STATE_DIR, stateDir.toString());
    HealthStreamsApp app = HealthStreamsApp.start(StreamsSettings.from(p), client, new SimpleMeterRegistry(),
        Duration.ofMinutes(1));
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> kafka.consumed(appId, Topics.BACKEND_SERVICES.name()));
    return app;
  }

  static <V extends SpecificRecord> KafkaProducer<String, V> producer(EmbeddedKafka kafka, Topic<String, V> topic,
      SchemaRegistryClient client) {
    return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.LINGER_MS_CONFIG, 5), topic.keySerde(client).serializer(), topic.valueSerde(client).serializer());
  }

  /** Every committed record of {@code topic} up to its end now, in partition order. */
  static <K, V extends SpecificRecord> void read(EmbeddedKafka kafka, SchemaRegistryClient client, Topic<K, V> topic,
      Consumer<ConsumerRecord<K, V>> each) {
    try (KafkaConsumer<K, V> consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        kafka.bootstrapServers(), ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
        topic.keySerde(client).deserializer(), topic.valueSerde(client).deserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic.name()).stream()
          .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        consumer.poll(Duration.ofMillis(200)).forEach(each);
      }
    }
  }
}
