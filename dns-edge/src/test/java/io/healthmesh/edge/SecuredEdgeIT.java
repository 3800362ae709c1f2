package io.healthmesh.edge;

import static io.healthmesh.edge.TopicRecords.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.kafka.embedded.TestCa;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * An edge on a secured broker (SASL_SSL with SCRAM-SHA-512, TLS from a CA made here, Kafka's
 * standard authorizer) with exactly the ACLs its {@link EdgeApp#kafkaAccess()} states: it serves;
 * with one of them missing it stays not ready and says which topic it may not read (R-SEC-2).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SecuredEdgeIT {
  private static final String KEY = "internal/api.example.internal./A";
  @TempDir
  static Path dir;
  private static TestCa tls;
  private static EmbeddedKafka kafka;
  private static SchemaRegistry registry;
  private static SchemaRegistryClient client;

  @BeforeAll
  static void start() throws Exception {
    tls = TestCa.make(dir);
    kafka = EmbeddedKafka.builder().partitions(1).secured(tls).start();
    // The registry and the test's own writes use the setup listener; the edge, the secured one.
    registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()));
    client = new RestSchemaRegistryClient(registry.url());
    send(kafka, client, Topics.MANAGED_ZONES, "internal", ManagedZone.newBuilder().setName("internal")
        .setDnsName("example.internal.").setNetworks(List.of("127.0.0.0/8")).build());
    send(kafka, client, Topics.RESOURCE_RECORD_SETS, KEY, ResourceRecordSet.newBuilder().setZone("internal")
        .setName("api.example.internal.").setType("A").setTtl(5).setRoutingPolicy(RoutingPolicy.newBuilder()
            .setWrr(WrrPolicy.newBuilder().setItems(List.of(
                item("10.1.0.1"), item("10.1.0.2"))).build()).build()).build());
    send(kafka, client, Topics.HEALTH_STATE, new EntityKey(EntityKind.EXTERNAL_ENDPOINT, "10.1.0.1"),
        HealthState.newBuilder().setStatus(HealthStatus.UNHEALTHY).setSince(Instant.ofEpochMilli(1_000)).build());
  }

  private static WrrItem item(String address) {
    return WrrItem.newBuilder().setWeight(100).setRrdatas(List.of(address)).setHealthCheckedTargets(
        HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of(address)).build()).build();
  }

  @AfterAll
  static void stop() {
    if (registry != null) {
      registry.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void servesHealthAwareAnswers_withExactlyTheAclsItsKafkaAccessStates() throws Exception {
    grant("edge-a", EdgeApp.kafkaAccess().bindings("User:edge-a"));
    try (EdgeApp edge = edge("edge-a")) {
      await("ready").atMost(Duration.ofSeconds(60)).until(edge::ready);
      assertThat(answer(edge)).as("10.1.0.1 is down").containsExactly("10.1.0.2");
      // What it writes gets through too: its status, and the decision it logged for that answer.
      await("its status and its decision are written").atMost(Duration.ofSeconds(30)).until(() ->
          keys(Topics.EDGE_STATUS.name()).contains("edge-a") && !keys(Topics.DNS_DECISIONS.name()).isEmpty());
    }
  }

  @Test
  void staysNotReady_sayingWhichTopic_whenAReadAclIsMissing() throws Exception {
    List<AclBinding> withoutHealth = EdgeApp.kafkaAccess().bindings("User:edge-b").stream()
        .filter(b -> !(b.pattern().resourceType() == ResourceType.TOPIC && b.pattern().name().equals(
            Topics.HEALTH_STATE.name()) && b.entry().operation() == AclOperation.READ)).toList();
    grant("edge-b", withoutHealth);
    try (EdgeApp edge = edge("edge-b")) {
      String reason = await("the reason names the topic").atMost(Duration.ofSeconds(60)).until(edge::notReady,
          r -> r != null && r.contains(Topics.HEALTH_STATE.name()));
      assertThat(reason).containsIgnoringCase("not authorized").contains(EdgeApp.kafkaAccess().describe());
      assertThat(edge.ready()).isFalse();
    }
  }

  private static void grant(String user, List<AclBinding> acls) throws Exception {
    kafka.createUser(user, user + "-secret");
    try (Admin admin = kafka.admin()) {
      admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
    }
  }

  private static EdgeApp edge(String user) throws Exception {
    Properties p = TopicRecords.edgeSettings(kafka, registry.url());
    p.setProperty(EdgeSettings.BOOTSTRAP_SERVERS, kafka.securedBootstrapServers());
    p.setProperty(EdgeSettings.NAME, user);
    p.setProperty(EdgeSettings.STATUS_INTERVAL_MS, "500");
    p.setProperty(EdgeSettings.DECISION_SAMPLE_RATE, "1");
    for (Map.Entry<String, Object> e : tls.clientSettings(user, user + "-secret").entrySet()) {
      p.setProperty(EdgeSettings.KAFKA_PREFIX + e.getKey(), e.getValue().toString());
    }
    return EdgeApp.start(EdgeSettings.from(p), client, new SimpleMeterRegistry());
  }

  /** The keys written to {@code topic} so far, read on the setup listener. */
  private static List<String> keys(String topic) {
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new StringDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
          .map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      List<String> keys = new ArrayList<>();
      consumer.poll(Duration.ofSeconds(2)).forEach(r -> keys.add(r.key()));
      return keys;
    }
  }

  private static List<String> answer(EdgeApp edge) throws Exception {
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", edge.port()));
    resolver.setTimeout(Duration.ofSeconds(2));
    Message reply = resolver.send(Message.newQuery(Record.newRecord(Name.fromConstantString("api.example.internal."),
        Type.A, DClass.IN)));
    return reply.getSection(Section.ANSWER).stream().map(Record::rdataToString).toList();
  }
}
