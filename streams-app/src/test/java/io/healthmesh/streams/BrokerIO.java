package io.healthmesh.streams;

import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;

/** What the topology's tests on a real broker write and read, through the topics' own serdes. */
final class BrokerIO {
  private BrokerIO() {}

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
