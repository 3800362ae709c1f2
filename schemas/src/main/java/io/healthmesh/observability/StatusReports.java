package io.healthmesh.observability;

import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@code interval}, a process's report of what it serves to a compacted status topic keyed
 * by its name, so that {@code healthctl status} can compare every instance. A broker that is away
 * only costs reports, which are counted ({@code <metric>{result="sent"|"failed"}}); serving never
 * waits for one.
 */
public final class StatusReports<V extends SpecificRecord> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusReports.class);
  private final Topic<String, V> topic;
  private final String key;
  private final Supplier<V> report;
  private final KafkaProducer<String, V> producer;
  private final Periodic timer;
  private final Counter sent;
  private final Counter failed;

  public StatusReports(Topic<String, V> topic, String key, Supplier<V> report, Map<String, Object> kafka,
      SchemaRegistryClient registry, Duration interval, MeterRegistry meters, String metric) {
    this.topic = topic;
    this.key = key;
    this.report = report;
    Map<String, Object> props = new HashMap<>(kafka);
    props.put(ProducerConfig.ACKS_CONFIG, "1");
    // A report that cannot go out soon is replaced by the next one anyway.
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) Math.min(interval.toMillis(), 5_000));
    this.producer = new KafkaProducer<>(props, topic.keySerde(registry).serializer(),
        topic.valueSerde(registry).serializer());
    this.sent = meters.counter(metric, "result", "sent");
    this.failed = meters.counter(metric, "result", "failed");
    this.timer = Periodic.start(topic.name(), this::send, Duration.ZERO, interval);
  }

  private void send() {
    try {
      producer.send(new ProducerRecord<>(topic.name(), key, report.get()), (metadata, e) -> {
        if (e == null) {
          sent.increment();
        } else {
          failed.increment();
          LOG.debug("{} report not sent: {}", topic.name(), e.toString());
        }
      });
    } catch (RuntimeException e) {
      failed.increment(); // broker away (max.block.ms) or registry away: the next report tries again
      LOG.debug("{} report not sent: {}", topic.name(), e.toString());
    }
  }

  @Override
  public void close() {
    timer.close();
    producer.close(Duration.ofSeconds(2));
  }
}
