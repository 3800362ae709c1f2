package io.healthmesh.bench;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What the topology has published: the latest status of every external endpoint on
 * {@code health-state} (committed records only, as the edges read them), and its consumer lag.
 */
final class HealthWatch implements AutoCloseable {
  private final Map<String, HealthStatus> endpoints = new ConcurrentHashMap<>();
  private final KafkaConsumer<EntityKey, HealthState> consumer;
  private final Admin admin;
  private final Thread thread;
  private volatile boolean running = true;

  private HealthWatch(String bootstrap, SchemaRegistryClient client) {
    consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap, "isolation.level", "read_committed",
        "max.poll.records", 10_000), Topics.HEALTH_STATE.keySerde(client).deserializer(),
        Topics.HEALTH_STATE.valueSerde(client).deserializer());
    admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
    thread = new Thread(this::follow, "bench-health-watch");
    thread.setDaemon(true);
  }

  static HealthWatch start(String bootstrap, SchemaRegistryClient client) {
    HealthWatch watch = new HealthWatch(bootstrap, client);
    watch.thread.start();
    return watch;
  }

  private void follow() {
    while (running) {
      List<TopicPartition> partitions = consumer.partitionsFor(Topics.HEALTH_STATE.name(), Duration.ofSeconds(30))
          .stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
      if (!partitions.isEmpty()) {
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        break;
      }
      sleep(200);
    }
    while (running) {
      for (ConsumerRecord<EntityKey, HealthState> r : consumer.poll(Duration.ofMillis(50))) {
        if (r.key() != null && r.key().getKind() == EntityKind.EXTERNAL_ENDPOINT) {
          if (r.value() == null) {
            endpoints.remove(r.key().getName());
          } else {
            endpoints.put(r.key().getName(), r.value().getStatus());
          }
        }
      }
    }
  }

  /** Until at least {@code count} endpoints are {@code status}. */
  void await(HealthStatus status, int count, Duration timeout) throws InterruptedException {
    Dns.await(timeout, count + " endpoints " + status, () -> endpoints.values().stream().filter(status::equals).count()
        >= count);
  }

  /** Until every primary endpoint is {@code status}. */
  void awaitPrimaries(int n, HealthStatus status, Duration timeout) throws InterruptedException {
    Dns.await(timeout, "primaries " + status, () -> {
      for (int i = n - 1; i >= 0; i--) {
        if (endpoints.get(EdgeScaleBenchmark.primary(i)) != status) {
          return false;
        }
      }
      return true;
    });
  }

  /**
   * Until the topology has read everything on its input and repartition topics (twice in a row):
   * an endpoint probed before the topology learned it from its record set would be dead-lettered.
   */
  void awaitTopologyKnows(String applicationId, Duration timeout) throws InterruptedException {
    int[] quiet = {0};
    Dns.await(timeout, "topology caught up", () -> {
      quiet[0] = lag(applicationId) == 0 ? quiet[0] + 1 : 0;
      return quiet[0] >= 2;
    });
  }

  private long lag(String group) {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata().get();
      if (committed.isEmpty()) {
        return Long.MAX_VALUE;
      }
      Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
      committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
      long lag = 0;
      for (var e : admin.listOffsets(latest).all().get().entrySet()) {
        OffsetAndMetadata at = committed.get(e.getKey());
        // a transaction's end marker takes an offset: within 1 is caught up
        lag += Math.max(0, e.getValue().offset() - (at == null ? 0 : at.offset()) - 1);
      }
      sleep(500);
      return lag;
    } catch (Exception e) {
      return Long.MAX_VALUE;
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(2_000);
    consumer.close();
    admin.close();
  }
}
