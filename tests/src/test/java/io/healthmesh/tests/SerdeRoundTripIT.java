package io.healthmesh.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every topic's key and value survive register, produce and consume through the real stack. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SerdeRoundTripIT {
  private static Stack stack;

  @BeforeAll
  static void start() {
    stack = new Stack();
  }

  @AfterAll
  static void stop() {
    stack.close();
  }

  @Test
  void everyTopicRoundTripsItsSample_whenProducedAndConsumedThroughBrokerAndRegistry() throws Exception {
    assertThat(Samples.all().keySet()).containsExactlyInAnyOrderElementsOf(Topics.all());
    for (Topic<?, ?> topic : Topics.all()) {
      roundTrip(topic);
    }
    // Subjects follow TopicNameStrategy: <topic>-value for every topic, <topic>-key for record keys.
    List<String> subjects = Topics.all().stream().map(Topic::valueSubject).toList();
    for (String subject : subjects) {
      assertThat(stack.client.latest(subject).version()).as(subject).isEqualTo(1);
    }
    assertThat(stack.client.latest(Topics.HEALTH_STATE.keySubject()).schema().getFullName())
        .isEqualTo("io.healthmesh.events.EntityKey");
  }

  @SuppressWarnings("unchecked")
  private static <K, V extends SpecificRecord> void roundTrip(Topic<K, V> topic) throws Exception {
    Samples.Sample sample = Samples.all().get(topic);
    K key = (K) sample.key();
    V value = (V) sample.value();
    try (KafkaProducer<K, V> producer = stack.producer(topic)) {
      producer.send(new ProducerRecord<>(topic.name(), key, value)).get();
    }
    List<ConsumerRecord<K, V>> read = stack.readAll(topic.name(),
        topic.keySerde(stack.client).deserializer(), topic.valueSerde(stack.client).deserializer(), 1);
    assertThat(read).as(topic.name()).hasSize(1);
    assertThat(read.get(0).key()).as(topic.name() + " key").isEqualTo(key);
    assertThat(read.get(0).value()).as(topic.name() + " value").isEqualTo(value);
  }
}
