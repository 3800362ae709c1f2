package io.healthmesh.edge;

import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Writes one record to a project topic with its own serdes, as a producer in a test would. */
final class TopicRecords {
  private TopicRecords() {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  static void send(EmbeddedKafka kafka, SchemaRegistryClient client, Topic topic, Object key, SpecificRecord value)
      throws Exception {
    try (KafkaProducer producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        kafka.bootstrapServers()), topic.keySerde(client).serializer(), topic.valueSerde(client).serializer())) {
      producer.send(new ProducerRecord<>(topic.name(), key, value)).get();
    }
  }
}
