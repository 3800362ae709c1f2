package io.healthmesh.cli.probe;

import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Heartbeat records: one to every partition of {@code probe-results}, carrying only event time,
 * so that a partition with nothing to report still moves the topology's clock on and stale
 * endpoints are found (R-EP-4).
 */
public final class Heartbeats {
  private Heartbeats() {}

  public static List<Future<RecordMetadata>> send(Producer<String, ProbeResult> producer, String prober, Instant at) {
    return send(producer, prober, at, null);
  }

  /** As {@link #send(Producer, String, Instant)}, telling {@code done} of each partition's record. */
  public static List<Future<RecordMetadata>> send(Producer<String, ProbeResult> producer, String prober, Instant at,
      Callback done) {
    ProbeResult heartbeat = ProbeResult.newBuilder().setType(ProbeRecordType.HEARTBEAT).setEventTime(at)
        .setProber(prober).build();
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    int partitions = producer.partitionsFor(Topics.PROBE_RESULTS.name()).size();
    for (int p = 0; p < partitions; p++) {
      sent.add(producer.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), p, at.toEpochMilli(), "heartbeat",
          heartbeat), done));
    }
    return sent;
  }
}
