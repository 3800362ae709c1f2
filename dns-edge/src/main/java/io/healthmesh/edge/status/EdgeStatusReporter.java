package io.healthmesh.edge.status;

import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.edge.state.TopicFollower;
import io.healthmesh.events.EdgePartition;
import io.healthmesh.events.EdgeStatus;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the cluster what this edge serves: every {@code interval} its snapshot's version and,
 * per followed partition, the last offset it includes beside the partition's end, to the
 * compacted {@code edge-status} topic, keyed by the edge's name. Comparing the reports of all
 * edges shows whether they serve the same state ({@code healthctl status --edges}). A broker that
 * is away only costs reports, which are counted; answering never waits for one.
 */
public final class EdgeStatusReporter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EdgeStatusReporter.class);
  private final String edge;
  private final String region;
  private final TopicFollower follower;
  private final Supplier<Snapshot> snapshot;
  private final KafkaProducer<String, EdgeStatus> producer;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "edge-status");
    t.setDaemon(true);
    return t;
  });
  private final Counter sent;
  private final Counter failed;

  public EdgeStatusReporter(String edge, String region, Map<String, Object> kafka, SchemaRegistryClient registry,
      TopicFollower follower, Supplier<Snapshot> snapshot, Duration interval, MeterRegistry meters) {
    this.edge = edge;
    this.region = region;
    this.follower = follower;
    this.snapshot = snapshot;
    Map<String, Object> props = new HashMap<>(kafka);
    props.put(ProducerConfig.ACKS_CONFIG, "1");
    // A report that cannot go out soon is replaced by the next one anyway.
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) Math.min(interval.toMillis(), 5_000));
    this.producer = new KafkaProducer<>(props, Topics.EDGE_STATUS.keySerde(registry).serializer(),
        Topics.EDGE_STATUS.valueSerde(registry).serializer());
    this.sent = meters.counter("healthmesh.edge.status.reports", "result", "sent");
    this.failed = meters.counter("healthmesh.edge.status.reports", "result", "failed");
    timer.scheduleWithFixedDelay(this::report, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The report as it would be sent now. */
  public EdgeStatus status() {
    Snapshot s = snapshot.get();
    Map<String, Long> ends = follower.endOffsets();
    List<EdgePartition> partitions = new ArrayList<>();
    for (String tp : follower.partitions()) {
      int dash = tp.lastIndexOf('-');
      partitions.add(EdgePartition.newBuilder().setTopic(tp.substring(0, dash))
          .setPartition(Integer.parseInt(tp.substring(dash + 1))).setServed(s.offsets().getOrDefault(tp, -1L))
          .setEnd(ends.getOrDefault(tp, -1L)).build());
    }
    return EdgeStatus.newBuilder().setEdge(edge).setRegion(region).setReady(follower.ready())
        .setSnapshotVersion(s.version()).setBuiltAt(Instant.ofEpochMilli(s.builtAtMillis()))
        .setReportedAt(Instant.now()).setLagRecords(follower.lagRecords())
        .setStalenessMillis(follower.stalenessMillis()).setPartitions(partitions).build();
  }

  private void report() {
    try {
      producer.send(new ProducerRecord<>(Topics.EDGE_STATUS.name(), edge, status()), (metadata, e) -> {
        if (e == null) {
          sent.increment();
        } else {
          failed.increment();
          LOG.debug("edge status not sent: {}", e.toString());
        }
      });
    } catch (RuntimeException e) {
      failed.increment(); // broker away (max.block.ms) or registry away: the next report tries again
      LOG.debug("edge status not sent: {}", e.toString());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    producer.close(Duration.ofSeconds(2));
  }
}
