package io.healthmesh.cli.config;

import io.healthmesh.schemas.AvroSerializer;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.TopicCreator;
import io.healthmesh.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The configuration as stored in the compacted config topics: read whole from the beginning
 * (committed records only), and written all or nothing in one Kafka transaction.
 */
public final class ConfigTopics {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private final Map<String, Object> client;
  private final SchemaRegistryClient registry;

  public ConfigTopics(Map<String, Object> client, SchemaRegistryClient registry) {
    this.client = Map.copyOf(client);
    this.registry = registry;
  }

  /** Creates the project's topics that are missing, as the topology would, so an apply can go first. */
  public void ensureTopics(int partitions, short replicationFactor) throws InterruptedException {
    try (Admin admin = Admin.create(client)) {
      new TopicCreator(partitions, replicationFactor).createMissing(admin, Topics.all());
    }
  }

  /** The current configuration; records that cannot be read are reported on {@code warnings}. */
  public Catalog read(List<String> warnings) {
    Catalog catalog = new Catalog();
    Map<String, Object> props = new HashMap<>(client);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props,
        new org.apache.kafka.common.serialization.StringDeserializer(), new ByteArrayDeserializer())) {
      Map<String, ResourceKind> kinds = new HashMap<>();
      Map<String, Deserializer<SpecificRecord>> values = new HashMap<>();
      List<TopicPartition> partitions = new ArrayList<>();
      for (ResourceKind kind : ResourceKind.values()) {
        String topic = kind.topic().name();
        kinds.put(topic, kind);
        values.put(topic, kind.topic().valueSerde(registry).deserializer());
        List<PartitionInfo> infos = consumer.partitionsFor(topic, TIMEOUT);
        infos.forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, TIMEOUT);
      long deadline = System.nanoTime() + TIMEOUT.toNanos() * 4;
      while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey(), TIMEOUT) < e.getValue())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("timed out reading the config topics");
        }
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          ResourceKind kind = kinds.get(r.topic());
          try {
            SpecificRecord value = values.get(r.topic()).deserialize(r.topic(), r.value());
            catalog.put(new Resource(kind, r.key(), value, r.topic() + "@" + r.partition() + ":" + r.offset()));
          } catch (SerializationException e) {
            warnings.add(r.topic() + "@" + r.partition() + ":" + r.offset() + " skipped: " + e.getMessage());
          }
        }
      }
    }
    return catalog;
  }

  /** Writes every change in one transaction: all of them become visible, or none. */
  public void write(List<Resource> changes) {
    if (changes.isEmpty()) {
      return;
    }
    Map<String, Object> props = new HashMap<>(client);
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "healthctl-apply-" + UUID.randomUUID());
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    try (KafkaProducer<String, SpecificRecord> producer = new KafkaProducer<>(props,
        // one serializer for every kind: the subject comes from each record's topic
        new org.apache.kafka.common.serialization.StringSerializer(), new AvroSerializer<SpecificRecord>(registry, false))) {
      producer.initTransactions();
      producer.beginTransaction();
      try {
        for (Resource change : changes) {
          producer.send(new ProducerRecord<>(change.kind().topic().name(), change.key(), change.value()));
        }
        producer.commitTransaction();
      } catch (RuntimeException e) {
        producer.abortTransaction();
        throw e;
      }
    }
  }
}
