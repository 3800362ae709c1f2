package io.healthmesh.bench;

import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.edge.EdgeApp;
import io.healthmesh.edge.EdgeSettings;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * How long a fresh edge takes to read 1,000,000 health-state records and 100,000 record sets
 * before it answers, and the heap it then holds (target: 10 s, 1 GiB).
 */
public final class EdgeCatchUpBenchmark {
  private static final int RECORD_SETS = Integer.getInteger("bench.recordsets", 100_000);
  private static final int HEALTH_RECORDS = Integer.getInteger("bench.health", 1_000_000);

  private EdgeCatchUpBenchmark() {}

  public static void main(String[] args) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(4).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
          ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 262_144);
      try (KafkaProducer<String, ManagedZone> zones = new KafkaProducer<>(props,
          Topics.MANAGED_ZONES.keySerde(client).serializer(), Topics.MANAGED_ZONES.valueSerde(client).serializer());
          KafkaProducer<String, ResourceRecordSet> sets = new KafkaProducer<>(props,
              Topics.RESOURCE_RECORD_SETS.keySerde(client).serializer(),
              Topics.RESOURCE_RECORD_SETS.valueSerde(client).serializer());
          KafkaProducer<EntityKey, HealthState> health = new KafkaProducer<>(props,
              Topics.HEALTH_STATE.keySerde(client).serializer(), Topics.HEALTH_STATE.valueSerde(client).serializer())) {
        zones.send(new ProducerRecord<>(Topics.MANAGED_ZONES.name(), "bench", ManagedZone.newBuilder().setName("bench")
            .setDnsName("bench.example.").setNetworks(List.of("127.0.0.0/8")).build()));
        for (int i = 0; i < RECORD_SETS; i++) {
          String a = address(2 * i);
          String b = address(2 * i + 1);
          ResourceRecordSet rrs = ResourceRecordSet.newBuilder().setZone("bench").setName("r" + i + ".bench.example.")
              .setType("A").setTtl(30).setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder()
                  .setItems(List.of(item(a, 25), item(b, 75))).build()).build()).build();
          sets.send(new ProducerRecord<>(Topics.RESOURCE_RECORD_SETS.name(), "bench/r" + i + ".bench.example./A", rrs));
        }
        Instant now = Instant.now();
        for (int i = 0; i < HEALTH_RECORDS; i++) {
          EntityKey key = new EntityKey(EntityKind.EXTERNAL_ENDPOINT, address(i % (2 * RECORD_SETS)));
          HealthState state = HealthState.newBuilder().setStatus(i % 7 == 0 ? HealthStatus.UNHEALTHY : HealthStatus.HEALTHY)
              .setSince(now).setVersion(i).build();
          health.send(new ProducerRecord<>(Topics.HEALTH_STATE.name(), key, state));
        }
      }
      System.out.printf("%nedge catch-up: %,d record sets and %,d health-state records in the topics%n", RECORD_SETS,
          HEALTH_RECORDS);
      Properties p = new Properties();
      p.setProperty(EdgeSettings.REGION, "us-east1");
      p.setProperty(EdgeSettings.PORT, "0");
      p.setProperty(EdgeSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      p.setProperty(EdgeSettings.SCHEMA_REGISTRY_URL, registry.url());
      System.gc();
      long heapBefore = usedHeap();
      long t0 = System.nanoTime();
      try (EdgeApp edge = EdgeApp.start(EdgeSettings.from(p), client, new SimpleMeterRegistry())) {
        edge.awaitReady(Duration.ofMinutes(5));
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.gc();
        long heap = usedHeap() - heapBefore;
        System.out.printf("ready after %.1f s (target <= 10 s); heap held by the edge after GC %,d MB (target <= 1,024)%n",
            seconds, heap >> 20);
      }
    }
  }

  private static WrrItem item(String address, int weight) {
    return WrrItem.newBuilder().setWeight(weight).setRrdatas(List.of(address))
        .setHealthCheckedTargets(HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(address)).build()).build();
  }

  private static String address(int i) {
    return "10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255);
  }

  private static long usedHeap() {
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }
}
