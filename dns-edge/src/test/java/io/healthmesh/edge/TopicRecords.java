package io.healthmesh.edge;

import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Writes one record to a project topic with its own serdes, as a producer in a test would; and the edge that reads them. */
final class TopicRecords {
  private TopicRecords() {}

  /** Settings of an edge in us-east1 on a free loopback port that follows this broker's topics. */
  static java.util.Properties edgeSettings(EmbeddedKafka kafka, String registryUrl) {
    java.util.Properties p = new java.util.Properties();
    p.setProperty(EdgeSettings.REGION, "us-east1");
    p.setProperty(EdgeSettings.PORT, "0");
    p.setProperty(EdgeSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    p.setProperty(EdgeSettings.SCHEMA_REGISTRY_URL, registryUrl);
    return p;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static void send(EmbeddedKafka kafka, SchemaRegistryClient client, Topic topic, Object key, SpecificRecord value)
      throws Exception {
    try (KafkaProducer producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        kafka.bootstrapServers()), topic.keySerde(client).serializer(), topic.valueSerde(client).serializer())) {
      producer.send(new ProducerRecord<>(topic.name(), key, value)).get();
    }
  }
}
