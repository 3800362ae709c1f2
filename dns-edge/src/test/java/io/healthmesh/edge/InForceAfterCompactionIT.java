package io.healthmesh.edge;

import static io.healthmesh.edge.TopicRecords.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.events.ConfigInForce;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * "The previous valid version stays in force" outlives compaction: an edge started after the
 * valid version was compacted away serves it, as the running edge does, from config-in-force.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class InForceAfterCompactionIT {
  private static final String KEY = "internal/api.example.internal./A";
  private static final String LEDGER_KEY = Topics.RESOURCE_RECORD_SETS.name() + "|" + KEY;

  @Test
  void aFreshEdgeServesTheVersionInForce_whenCompactionLeftOnlyARejectedOne() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(1).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      send(kafka, client, Topics.MANAGED_ZONES, "internal", ManagedZone.newBuilder().setName("internal")
          .setDnsName("example.internal.").setNetworks(List.of("127.0.0.0/8")).build());
      send(kafka, client, Topics.RESOURCE_RECORD_SETS, KEY, wrr(100, "10.1.0.1"));
      try (EdgeApp running = edge(kafka, registry, client)) {
        await().atMost(Duration.ofSeconds(30)).until(() -> answer(running), "10.1.0.1"::equals);

        // Any producer may write the topic: a weight above 1000 breaks R-WRR-1.
        send(kafka, client, Topics.RESOURCE_RECORD_SETS, KEY, wrr(2000, "10.6.6.6"));
        ConfigInForce entry = await("the running edge writes what it keeps").atMost(Duration.ofSeconds(30))
            .until(() -> ledger(kafka, client).get(LEDGER_KEY), e -> e != null);
        assertThat(entry.getInForceOffset()).isZero();
        assertThat(entry.getRejectedOffset()).isEqualTo(1);
        assertThat(entry.getProblems()).anySatisfy(p -> assertThat(p).contains("R-WRR-1"));
        assertThat(answer(running)).as("the running edge keeps the valid version").isEqualTo("10.1.0.1");

        deleteBefore(kafka, Topics.RESOURCE_RECORD_SETS.name(), 1); // what compaction does: only the newest stays
        try (EdgeApp fresh = edge(kafka, registry, client)) {
          assertThat(answer(fresh)).as("a fresh edge serves the version in force").isEqualTo("10.1.0.1");
        }
        try (Admin admin = kafka.admin()) {
          deleteBefore(kafka, Topics.CONFIG_IN_FORCE.name(), endOffset(admin, Topics.CONFIG_IN_FORCE.name()));
        }
        try (EdgeApp withoutLedger = edge(kafka, registry, client)) {
          assertThat(rcode(withoutLedger)).as("without config-in-force the same edge has nothing to serve")
              .isEqualTo(Rcode.NXDOMAIN);
        }

        send(kafka, client, Topics.RESOURCE_RECORD_SETS, KEY, wrr(100, "10.1.0.3"));
        await("a valid version is taken").atMost(Duration.ofSeconds(30)).until(() -> answer(running), "10.1.0.3"::equals);
        await("and the entry is deleted").atMost(Duration.ofSeconds(30)).until(() -> {
          Map<String, ConfigInForce> latest = ledger(kafka, client);
          return latest.containsKey(LEDGER_KEY) && latest.get(LEDGER_KEY) == null;
        });
      }
    }
  }

  /** Removes a compacted topic's records before {@code offset}, as compaction removes superseded ones. */
  private static void deleteBefore(EmbeddedKafka kafka, String topic, long offset) throws Exception {
    try (Admin admin = kafka.admin()) {
      // DeleteRecords needs the delete policy beside compaction.
      admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), List.of(
          new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact,delete"), AlterConfigOp.OpType.SET))))
          .all().get(30, TimeUnit.SECONDS);
      // The controller has taken the new policy when the alter returns; the partition's leader
      // applies it from the metadata log a moment later, and refuses the deletion until then.
      await("the leader takes the delete policy").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
          .ignoreExceptionsMatching(e -> e.getCause() instanceof PolicyViolationException).until(() -> {
            admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(offset)))
                .all().get(30, TimeUnit.SECONDS);
            return true;
          });
    }
  }

  private static long endOffset(Admin admin, String topic) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get(30, TimeUnit.SECONDS).get(tp).offset();
  }

  private static Map<String, ConfigInForce> ledger(EmbeddedKafka kafka, SchemaRegistryClient client) {
    Map<String, ConfigInForce> latest = new HashMap<>();
    try (KafkaConsumer<String, ConfigInForce> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
        Topics.CONFIG_IN_FORCE.keySerde(client).deserializer(), Topics.CONFIG_IN_FORCE.valueSerde(client).deserializer())) {
      TopicPartition tp = new TopicPartition(Topics.CONFIG_IN_FORCE.name(), 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      while (consumer.position(tp) < end) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> latest.put(r.key(), r.value()));
      }
    }
    return latest;
  }

  private static EdgeApp edge(EmbeddedKafka kafka, SchemaRegistry registry, SchemaRegistryClient client) throws Exception {
    Properties p = TopicRecords.edgeSettings(kafka, registry.url());
    EdgeApp edge = EdgeApp.start(EdgeSettings.from(p), client, new SimpleMeterRegistry());
    edge.awaitReady(Duration.ofSeconds(60));
    return edge;
  }

  private static ResourceRecordSet wrr(int weight, String address) {
    return ResourceRecordSet.newBuilder().setZone("internal").setName("api.example.internal.").setType("A").setTtl(5)
        .setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            WrrItem.newBuilder().setWeight(weight).setRrdatas(List.of(address)).build())).build()).build()).build();
  }

  private static Message ask(EdgeApp edge) throws Exception {
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", edge.port()));
    resolver.setTimeout(Duration.ofSeconds(2));
    return resolver.send(Message.newQuery(Record.newRecord(Name.fromConstantString("api.example.internal."), Type.A, DClass.IN)));
  }

  private static int rcode(EdgeApp edge) throws Exception {
    return ask(edge).getRcode();
  }

  private static String answer(EdgeApp edge) throws Exception {
    List<Record> answer = ask(edge).getSection(Section.ANSWER);
    return answer.isEmpty() ? "" : answer.get(0).rdataToString();
  }
}
