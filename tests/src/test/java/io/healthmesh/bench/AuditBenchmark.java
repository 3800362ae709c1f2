package io.healthmesh.bench;

import io.healthmesh.cli.audit.AuditData;
import io.healthmesh.cli.audit.Replayer;
import io.healthmesh.cli.audit.Transitions;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * How long {@code audit replay} and {@code audit state-at} take over 1,000,000 probe results
 * (10,000 endpoints whose health comes and goes), each against the anchor of reading the same
 * topic's bytes with a plain consumer in the same run.
 */
public final class AuditBenchmark {
  private static final int PROBES = Integer.getInteger("bench.audit.probes", 1_000_000);
  private static final int SERVICES = 1_000;
  private static final int PER_SERVICE = 10;

  private AuditBenchmark() {}

  public static void main(String[] args) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(4).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      Map<String, Object> props = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
      System.out.printf("audit benchmark: %,d probe results over %,d endpoints%n", PROBES, SERVICES * PER_SERVICE);
      TopologyBenchmark.produceConfiguration(kafka, client, SERVICES, PER_SERVICE);
      // every endpoint fails for three rounds in every fifty, staggered: transitions all along
      TopologyBenchmark.produceProbes(kafka, client, PROBES, SERVICES * PER_SERVICE, PER_SERVICE,
          (round, endpoint, random) -> round < 2 || (round + endpoint) % 50 >= 3, -1, 1);
      AuditData data = new AuditData(props, client, false);

      double rawProbes = rawRead(data, Topics.PROBE_RESULTS.name());
      Replayer.Result replay = new Replayer(data.scan(), client).replay(null, null, List.of());
      double replayRate = (replay.probeRecords() + replay.configRecords()) / replay.seconds();
      System.out.printf("replay     %,10.0f records/s  %6.1f s  (%,d probe results in, %,d transitions out)%n",
          replayRate, replay.seconds(), replay.probeRecords(), replay.transitions().size());
      System.out.printf("anchor     %,10.0f records/s  plain consumer over probe-results%n", rawProbes);
      System.out.printf("ratio replay/anchor: %.3f%n", replayRate / rawProbes);

      publish(kafka, client, replay.transitions());
      double rawTransitions = rawRead(data, Topics.HEALTH_TRANSITIONS.name());
      long t0 = System.nanoTime();
      Transitions transitions = data.transitions();
      int entities = transitions.all(Instant.parse("2026-12-01T00:00:00Z")).size();
      double seconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf("state-at   %,10.0f records/s  %6.1f s  (%,d transitions read, %,d entities)%n",
          transitions.size() / seconds, seconds, transitions.size(), entities);
      System.out.printf("anchor     %,10.0f records/s  plain consumer over health-transitions%n", rawTransitions);
      System.out.printf("ratio state-at/anchor: %.3f%n", transitions.size() / seconds / rawTransitions);
    }
  }

  private static double rawRead(AuditData data, String topic) {
    long[] count = new long[1];
    long t0 = System.nanoTime();
    data.scan().read(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer(), null, r -> count[0]++);
    return count[0] / ((System.nanoTime() - t0) / 1e9);
  }

  private static void publish(EmbeddedKafka kafka, SchemaRegistryClient client, List<HealthTransition> transitions) {
    try (KafkaProducer<io.healthmesh.events.EntityKey, HealthTransition> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ProducerConfig.LINGER_MS_CONFIG, 20),
        Topics.HEALTH_TRANSITIONS.keySerde(client).serializer(), Topics.HEALTH_TRANSITIONS.valueSerde(client).serializer())) {
      for (HealthTransition t : transitions) {
        producer.send(new ProducerRecord<>(Topics.HEALTH_TRANSITIONS.name(), null, t.getEventTime().toEpochMilli(),
            t.getEntity(), t));
      }
    }
  }
}
