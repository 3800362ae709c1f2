package io.healthmesh.tests;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.HealthState;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;

/** A real broker with the project's topics and a real registry over HTTP, for one test class. */
final class Stack implements AutoCloseable {
  final EmbeddedKafka kafka;
  final SchemaRegistry registry;
  final SchemaRegistryClient client;

  Stack() {
    this(2);
  }

  Stack(int partitions) {
    kafka = EmbeddedKafka.builder().partitions(partitions).start();
    registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()));
    client = new RestSchemaRegistryClient(registry.url());
  }

  <K, V> KafkaProducer<K, V> producer(Serde<K> keys, Serde<V> values) {
    return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all"), keys.serializer(), values.serializer());
  }

  /** Every record of {@code topic} from the beginning, waiting until {@code count} arrived. */
  <K, V> List<ConsumerRecord<K, V>> readAll(String topic, Deserializer<K> keys, Deserializer<V> values, int count) {
    return readUntil(topic, keys, values, records -> records.size() >= count);
  }

  /** The first raw record of {@code topic} that {@code wanted} accepts. */
  ConsumerRecord<byte[], byte[]> findRaw(String topic, Predicate<ConsumerRecord<byte[], byte[]>> wanted) {
    List<ConsumerRecord<byte[], byte[]>> read = readUntil(topic, new ByteArrayDeserializer(),
        new ByteArrayDeserializer(), records -> records.stream().anyMatch(wanted));
    return read.stream().filter(wanted).findFirst()
        .orElseThrow(() -> new AssertionError("no such record in " + topic + " after 30 s"));
  }

  private <K, V> List<ConsumerRecord<K, V>> readUntil(String topic, Deserializer<K> keys, Deserializer<V> values,
      Predicate<List<ConsumerRecord<K, V>>> done) {
    Map<String, Object> props = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<ConsumerRecord<K, V>> records = new ArrayList<>();
    try (KafkaConsumer<K, V> consumer = new KafkaConsumer<>(props, keys, values)) {
      // Assigned, not subscribed: no group to join, so a read takes milliseconds.
      consumer.assign(consumer.partitionsFor(topic).stream()
          .map(p -> new TopicPartition(topic, p.partition())).toList());
      long deadline = System.currentTimeMillis() + 30_000;
      while (!done.test(records) && System.currentTimeMillis() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  /** Everything {@code topic} holds now: read up to the end offsets it has at the call. */
  List<ConsumerRecord<byte[], byte[]>> readNow(String topic) {
    return readNow(kafka.bootstrapServers(), topic);
  }

  static List<ConsumerRecord<byte[], byte[]>> readNow(String bootstrapServers, String topic) {
    Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
          .map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.currentTimeMillis() + 30_000;
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
          && System.currentTimeMillis() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  /** The current state of every entity in {@code health-state}; a tombstone removes one. */
  static Map<EntityKey, HealthState> healthStates(String bootstrapServers, SchemaRegistryClient registry) {
    var keys = Topics.HEALTH_STATE.keySerde(registry).deserializer();
    var values = Topics.HEALTH_STATE.valueSerde(registry).deserializer();
    Map<EntityKey, HealthState> latest = new java.util.HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : readNow(bootstrapServers, Topics.HEALTH_STATE.name())) {
      EntityKey key = keys.deserialize(r.topic(), r.key());
      HealthState value = values.deserialize(r.topic(), r.value());
      if (value == null) {
        latest.remove(key);
      } else {
        latest.put(key, value);
      }
    }
    return latest;
  }

  List<ConsumerRecord<byte[], byte[]>> readRaw(String topic, int count) {
    return readAll(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer(), count);
  }

  <K, V extends org.apache.avro.specific.SpecificRecord> KafkaProducer<K, V> producer(Topic<K, V> topic) {
    return producer(topic.keySerde(client), topic.valueSerde(client));
  }

  @Override
  public void close() {
    registry.close();
    kafka.close();
  }
}
