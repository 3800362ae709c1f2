package io.healthmesh.bench;

import io.healthmesh.edge.EdgeApp;
import io.healthmesh.edge.EdgeSettings;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.HealthState;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.kafka.embedded.TestCa;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * How long a fresh edge, in this JVM, takes to read 100,000 record sets and 1,000,000 health-state
 * keys (the edge-scale benchmark's data) before it answers, and the heap it then holds (target:
 * 10 s, 1 GiB).
 */
public final class EdgeCatchUpBenchmark {
  private static final int RECORD_SETS = Integer.getInteger("bench.recordsets", 100_000);

  private EdgeCatchUpBenchmark() {}

  public static void main(String[] args) throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("healthmesh-bench-edge");
    TestCa tls = SecuredClients.SECURED ? TestCa.make(dir) : null;
    EmbeddedKafka.Builder broker = EmbeddedKafka.builder().partitions(4);
    try (EmbeddedKafka kafka = (tls == null ? broker : broker.secured(tls)).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      try (KafkaProducer<EntityKey, HealthState> health = new KafkaProducer<>(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ProducerConfig.LINGER_MS_CONFIG, 20,
          ProducerConfig.BATCH_SIZE_CONFIG, 262_144), Topics.HEALTH_STATE.keySerde(client).serializer(),
          Topics.HEALTH_STATE.valueSerde(client).serializer())) {
        EdgeScaleBenchmark.populate(kafka, client, health, RECORD_SETS);
      }
      System.out.printf("%nedge catch-up: %,d record sets and %,d health-state keys in the topics%n", RECORD_SETS,
          10 * RECORD_SETS);
      if (tls == null) {
        catchUp("plaintext", kafka.bootstrapServers(), Map.of(), registry, client);
        return;
      }
      // One unmeasured round of each first, so that neither side pays for the JIT; then
      // alternated, so that neither has the warmer page cache to itself.
      Map<String, Object> secured = SecuredClients.grant(kafka, tls, "bench-edge", EdgeApp.kafkaAccess());
      catchUp("warm-up, plaintext", kafka.bootstrapServers(), Map.of(), registry, client);
      catchUp("warm-up, SASL_SSL", kafka.securedBootstrapServers(), secured, registry, client);
      double[] plain = new double[2];
      double[] sasl = new double[2];
      for (int round = 0; round < 2; round++) {
        long cpu0 = ProcessStats.cpuNanos();
        plain[0] += catchUp("plaintext", kafka.bootstrapServers(), Map.of(), registry, client);
        long cpu1 = ProcessStats.cpuNanos();
        sasl[0] += catchUp("SASL_SSL", kafka.securedBootstrapServers(), secured, registry, client);
        plain[1] += (cpu1 - cpu0) / 1e9;
        sasl[1] += (ProcessStats.cpuNanos() - cpu1) / 1e9;
      }
      System.out.printf("ratio SASL_SSL / plaintext over two rounds each: catch-up speed %.2f (%.1f s against %.1f s),"
          + " CPU per catch-up %.2f (%.1f CPU-s against %.1f, broker included)%n", plain[0] / sasl[0], sasl[0], plain[0],
          sasl[1] / plain[1], sasl[1], plain[1]);
    }
  }

  /** Seconds until a fresh edge with these client settings is ready. */
  private static double catchUp(String what, String bootstrap, Map<String, Object> kafkaClient, SchemaRegistry registry,
      SchemaRegistryClient client) throws Exception {
    Properties p = new Properties();
    p.setProperty(EdgeSettings.REGION, "us-east1");
    p.setProperty(EdgeSettings.PORT, "0");
    p.setProperty(EdgeSettings.BOOTSTRAP_SERVERS, bootstrap);
    p.setProperty(EdgeSettings.SCHEMA_REGISTRY_URL, registry.url());
    kafkaClient.forEach((k, v) -> p.setProperty(EdgeSettings.KAFKA_PREFIX + k, v.toString()));
    System.gc();
    long heapBefore = usedHeap();
    long t0 = System.nanoTime();
    try (EdgeApp edge = EdgeApp.start(EdgeSettings.from(p), client, new SimpleMeterRegistry())) {
      edge.awaitReady(Duration.ofMinutes(5));
      double seconds = (System.nanoTime() - t0) / 1e9;
      System.gc();
      long heap = usedHeap() - heapBefore;
      System.out.printf("%s: ready after %.1f s (target <= 10 s); heap held by the edge after GC %,d MB"
          + " (target <= 1,024)%n", what, seconds, heap >> 20);
      return seconds;
    }
  }

  private static long usedHeap() {
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }
}
