package io.healthmesh.edge.log;

import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes log records to one topic from a thread of its own. A query thread only offers a record
 * to a bounded queue: a slow or absent broker never delays an answer, it only loses log lines,
 * which {@code dropped} counts.
 */
final class BoundedSender<V extends SpecificRecord> implements AutoCloseable {
  private final Topic<String, V> topic;
  private final KafkaProducer<String, V> producer;
  private final Counter dropped;
  private final BlockingQueue<ProducerRecord<String, V>> queue = new ArrayBlockingQueue<>(10_000);
  private final Thread sender;
  private volatile boolean running = true;

  BoundedSender(Topic<String, V> topic, Map<String, Object> kafka, SchemaRegistryClient registry, Counter dropped) {
    this.topic = topic;
    this.dropped = dropped;
    Map<String, Object> props = new HashMap<>(kafka);
    props.put(ProducerConfig.LINGER_MS_CONFIG, 50);
    props.put(ProducerConfig.ACKS_CONFIG, "1");
    this.producer = new KafkaProducer<>(props, topic.keySerde(registry).serializer(),
        topic.valueSerde(registry).serializer());
    this.sender = new Thread(this::send, "log-" + topic.name());
    sender.setDaemon(true);
    sender.start();
  }

  /** Queues one record; dropped and counted when the queue is full. */
  void offer(String key, V value) {
    if (!queue.offer(new ProducerRecord<>(topic.name(), key, value))) {
      dropped.increment();
    }
  }

  private void send() {
    while (running || !queue.isEmpty()) {
      try {
        ProducerRecord<String, V> record = queue.poll(100, TimeUnit.MILLISECONDS);
        if (record != null) {
          producer.send(record, (m, e) -> {
            if (e != null) {
              dropped.increment();
            }
          });
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        dropped.increment();
      }
    }
  }

  @Override
  public void close() {
    running = false;
    try {
      sender.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(Duration.ofSeconds(5));
  }
}
