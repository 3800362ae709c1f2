package io.healthmesh.edge.follow;

import io.healthmesh.events.ConfigInForce;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes {@code config-in-force} entries from a thread of its own, so that the thread that
 * follows the topics never waits for the broker. The producer is made on the first write: most
 * edges never reject anything. A write that fails is counted and logged; every edge that rejects
 * the same version writes the same entry, so one edge's loss is another's write.
 */
final class LedgerWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerWriter.class);
  private final Map<String, Object> props;
  private final SchemaRegistryClient registry;
  private final Counter written;
  private final Counter failed;
  private final ExecutorService sender = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "edge-ledger-writer");
    t.setDaemon(true);
    return t;
  });
  private KafkaProducer<String, ConfigInForce> producer;

  LedgerWriter(Map<String, Object> kafka, SchemaRegistryClient registry, MeterRegistry meters) {
    this.props = new HashMap<>(kafka);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
    this.registry = registry;
    this.written = Counter.builder("healthmesh.edge.ledger.writes").tag("result", "written")
        .description("entries written to config-in-force (versions kept in force, or deleted)").register(meters);
    this.failed = Counter.builder("healthmesh.edge.ledger.writes").tag("result", "failed")
        .description("entries written to config-in-force (versions kept in force, or deleted)").register(meters);
  }

  /** {@code entry} null deletes the entry. */
  void write(String key, ConfigInForce entry) {
    try {
      sender.execute(() -> send(key, entry));
    } catch (RejectedExecutionException e) {
      failed.increment(); // closing
    }
  }

  private void send(String key, ConfigInForce entry) {
    try {
      if (producer == null) {
        producer = new KafkaProducer<>(props, Topics.CONFIG_IN_FORCE.keySerde(registry).serializer(),
            Topics.CONFIG_IN_FORCE.valueSerde(registry).serializer());
      }
      producer.send(new ProducerRecord<>(Topics.CONFIG_IN_FORCE.name(), key, entry), (metadata, e) -> {
        if (e == null) {
          written.increment();
        } else {
          failed.increment();
          LOG.warn("config-in-force entry {} not written: {}", key, e.toString());
        }
      });
    } catch (RuntimeException e) {
      failed.increment();
      LOG.warn("config-in-force entry {} not written: {}", key, e.toString());
    }
  }

  @Override
  public void close() {
    sender.shutdown();
    try {
      sender.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
  }
}
