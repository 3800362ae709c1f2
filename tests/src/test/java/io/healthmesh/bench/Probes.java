package io.healthmesh.bench;

import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Probe results as a prober publishes them ({@code healthctl probe publish}): keyed by the probed address. */
final class Probes {
  private Probes() {}

  /** A producer of probe results as a prober's: small batches, soon sent. */
  static KafkaProducer<String, ProbeResult> producer(String bootstrap, SchemaRegistryClient client) {
    return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.BATCH_SIZE_CONFIG, 262_144),
        Topics.PROBE_RESULTS.keySerde(client).serializer(), Topics.PROBE_RESULTS.valueSerde(client).serializer());
  }

  static void send(KafkaProducer<String, ProbeResult> probes, String address, boolean up) {
    probe(probes, address, null, address, up);
  }

  /** A probe of endpoint {@code e<k>} of the control service, keyed by the service as probers key them. */
  static void control(KafkaProducer<String, ProbeResult> probes, int k, boolean up) {
    probe(probes, PipelineConfig.CONTROL, PipelineConfig.CONTROL, "e" + k, up);
  }

  private static void probe(KafkaProducer<String, ProbeResult> probes, String key, String service, String endpoint,
      boolean up) {
    Instant at = Instant.now();
    probes.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, at.toEpochMilli(), key,
        ProbeResult.newBuilder().setBackendService(service).setEndpointId(endpoint).setSuccess(up).setEventTime(at)
            .setProber("bench").setDetail(up ? "HTTP 200" : "connection refused").build()));
  }

  /** One probe for each primary (and, with {@code standbys}, each standby and the flipped pair). */
  static void all(KafkaProducer<String, ProbeResult> probes, int n, boolean up, boolean standbys) {
    for (int i = 0; i < n; i++) {
      send(probes, EdgeScaleBenchmark.primary(i), up);
      if (standbys) {
        send(probes, EdgeScaleBenchmark.standby(i), up);
      }
    }
    if (standbys) {
      send(probes, PipelineConfig.FLIPPED, up);
      send(probes, PipelineConfig.FLIPPED_STANDBY, up);
    }
    probes.flush();
  }

  /** Milliseconds from the probe that flips {@code api} to the first answer showing {@code wanted}. */
  static long flipAndWait(KafkaProducer<String, ProbeResult> probes, Dns dns, String address, boolean up, String wanted,
      Duration timeout) throws InterruptedException {
    long t0 = System.nanoTime();
    send(probes, address, up);
    probes.flush();
    long deadline = t0 + timeout.toNanos();
    while (!dns.answer("api").equals(wanted)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("api did not answer " + wanted + " within " + timeout);
      }
      Thread.sleep(1);
    }
    return (System.nanoTime() - t0) / 1_000_000;
  }
}
