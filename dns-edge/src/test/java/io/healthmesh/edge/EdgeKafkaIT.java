package io.healthmesh.edge;

import static io.healthmesh.edge.TopicRecords.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.LoadBalancerTarget;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.WrrPolicy;
import io.healthmesh.events.DecisionReason;
import io.healthmesh.events.DnsDecision;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.RoutingPolicyType;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
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

/** An edge that builds its state from the real topics and follows a health change. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EdgeKafkaIT {

  @Test
  void answersFromTheTopics_andFollowsAHealthStateChange_measuringItsPropagationAndLag() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      send(kafka, client, Topics.MANAGED_ZONES, "internal", ManagedZone.newBuilder().setName("internal")
          .setDnsName("example.internal.").setNetworks(List.of("127.0.0.0/8")).build());
      send(kafka, client, Topics.FORWARDING_RULES, "fr-orders", ForwardingRule.newBuilder().setName("fr-orders")
          .setRegion("us-east1").setIpAddress("10.1.0.100").setBackendService("orders").build());
      send(kafka, client, Topics.RESOURCE_RECORD_SETS, "internal/api.example.internal./A", ResourceRecordSet.newBuilder()
          .setZone("internal").setName("api.example.internal.").setType("A").setTtl(5)
          .setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
              WrrItem.newBuilder().setWeight(100).setRrdatas(List.of("10.1.0.100")).setHealthCheckedTargets(
                  HealthCheckedTargets.newBuilder().setInternalLoadBalancers(List.of(
                      LoadBalancerTarget.newBuilder().setForwardingRule("fr-orders").build())).build()).build(),
              WrrItem.newBuilder().setWeight(0).setRrdatas(List.of("10.9.0.1")).build())).build()).build()).build());
      health(kafka, client, HealthStatus.HEALTHY);

      Properties p = TopicRecords.edgeSettings(kafka, registry.url());
      p.setProperty(EdgeSettings.DECISION_SAMPLE_RATE, "1");
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      try (EdgeApp edge = EdgeApp.start(EdgeSettings.from(p), client, meters)) {
        // Ready is what /health/ready reports: the first query after it must be answered.
        await("ready").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(edge::ready);
        assertThat(answer(edge)).as("answered as soon as the edge says it is ready").isEqualTo("10.1.0.100");

        health(kafka, client, HealthStatus.UNHEALTHY);
        await("R-WRR-6: the zero-weight item once the load balancer is down").atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(20)).until(() -> answer(edge), "10.9.0.1"::equals);
        assertThat(edge.snapshot().offsets()).isNotEmpty();
        // The change was served once the snapshot held it: measured from its record's timestamp.
        io.micrometer.core.instrument.Timer propagation = meters.get("healthmesh.edge.change.propagation")
            .tag("change", "health").timer();
        assertThat(propagation.count()).isEqualTo(1);
        assertThat(propagation.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isBetween(0.0, 10_000.0);
        await("no lag").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
            .until(() -> meters.get("healthmesh.edge.follower.lag.records").gauge().value(), lag -> lag == 0);
        assertThat(meters.get("healthmesh.edge.follower.lag.seconds").gauge().value()).isZero();
        assertThat(meters.get("healthmesh.edge.follower.cpu").functionCounter().count()).isPositive();
        // R-DNSHC-6: the decisions were logged with the health each address had.
        List<DnsDecision> logged = decisions(kafka, client, 2);
        assertThat(logged).extracting(DnsDecision::getReason).contains(DecisionReason.WEIGHT_DRAW, DecisionReason.FAILOVER);
        DnsDecision healthy = logged.stream().filter(d -> d.getReason() == DecisionReason.WEIGHT_DRAW).findFirst().orElseThrow();
        assertThat(healthy.getAddresses()).singleElement().satisfies(a -> {
          assertThat(a.getAddress()).isEqualTo("10.1.0.100");
          assertThat(a.getStatus()).isEqualTo(HealthStatus.HEALTHY);
          assertThat(a.getReturned()).isTrue();
        });
        assertThat(healthy.getPolicy()).isEqualTo(RoutingPolicyType.WRR);
        assertThat(healthy.getEdgeRegion()).isEqualTo("us-east1");

        lastKnownExpiresWithoutARecord(kafka, client, edge, meters);
        coalescesSnapshots_whenHealthChangesArriveManyTimesASecond(kafka, client, edge, meters);
      }
    }
  }

  /**
   * R-OP-2 through the topics: a target that went UNKNOWN while down keeps being avoided for its
   * record set's maximum age, then is answered again with no record read in between.
   */
  private static void lastKnownExpiresWithoutARecord(EmbeddedKafka kafka, SchemaRegistryClient client, EdgeApp edge,
      SimpleMeterRegistry meters) throws Exception {
    send(kafka, client, Topics.RESOURCE_RECORD_SETS, "internal/lk.example.internal./A", ResourceRecordSet.newBuilder()
        .setZone("internal").setName("lk.example.internal.").setType("A").setTtl(5)
        .setRoutingPolicy(RoutingPolicy.newBuilder().setWrr(WrrPolicy.newBuilder().setItems(List.of(
            WrrItem.newBuilder().setWeight(100).setRrdatas(List.of("10.7.0.1")).setHealthCheckedTargets(
                HealthCheckedTargets.newBuilder().setExternalEndpoints(List.of("10.7.0.1")).build()).build(),
            WrrItem.newBuilder().setWeight(0).setRrdatas(List.of("10.9.0.7")).build())).build())
            .setUnknownTargets(io.healthmesh.config.UnknownTargetBehavior.LAST_KNOWN).setLastKnownMaxAgeSeconds(4).build())
        .build());
    EntityKey target = new EntityKey(EntityKind.EXTERNAL_ENDPOINT, "10.7.0.1");
    Instant stale = Instant.now();
    send(kafka, client, Topics.HEALTH_STATE, target, HealthState.newBuilder().setStatus(HealthStatus.UNKNOWN)
        .setSince(stale).setLastKnownStatus(HealthStatus.UNHEALTHY).build());
    await("the target is avoided as last known").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(() -> answer(edge, "lk.example.internal."), "10.9.0.7"::equals);
    assertThat(meters.get("healthmesh.edge.unknown.targets.counted").tag("as", "UNHEALTHY").gauge().value()).isEqualTo(1);
    await("4 s after it went UNKNOWN it counts as the default again").atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50)).until(() -> answer(edge, "lk.example.internal."), "10.7.0.1"::equals);
    assertThat(Duration.between(stale, Instant.now())).isGreaterThanOrEqualTo(Duration.ofSeconds(4));
    assertThat(meters.get("healthmesh.edge.unknown.targets.counted").tag("as", "UNHEALTHY").gauge().value()).isZero();
  }

  private static List<DnsDecision> decisions(EmbeddedKafka kafka, SchemaRegistryClient client, int atLeast) {
    Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<DnsDecision> read = new java.util.ArrayList<>();
    try (KafkaConsumer<String, DnsDecision> consumer = new KafkaConsumer<>(props,
        Topics.DNS_DECISIONS.keySerde(client).deserializer(), Topics.DNS_DECISIONS.valueSerde(client).deserializer())) {
      consumer.assign(consumer.partitionsFor(Topics.DNS_DECISIONS.name()).stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).toList());
      long deadline = System.currentTimeMillis() + 15_000;
      while (System.currentTimeMillis() < deadline && read.stream().map(DnsDecision::getReason).distinct().count() < atLeast) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> read.add(r.value()));
      }
    }
    return read;
  }

  /**
   * A topology committing hundreds of times a second (each flip its own record, sent at once)
   * gets at most one snapshot per {@code dns.snapshot.min.interval.ms} (50 ms), and the last flip is served.
   */
  private static void coalescesSnapshots_whenHealthChangesArriveManyTimesASecond(EmbeddedKafka kafka,
      SchemaRegistryClient client, EdgeApp edge, SimpleMeterRegistry meters) throws Exception {
    io.micrometer.core.instrument.Timer builds = meters.get("healthmesh.edge.snapshot.build").timer();
    EntityKey key = new EntityKey(EntityKind.FORWARDING_RULE, "fr-orders");
    try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<EntityKey, HealthState>(
        Map.of("bootstrap.servers", kafka.bootstrapServers(), "linger.ms", 0),
        Topics.HEALTH_STATE.keySerde(client).serializer(), Topics.HEALTH_STATE.valueSerde(client).serializer())) {
      long before = builds.count();
      long t0 = System.nanoTime();
      HealthStatus status = HealthStatus.HEALTHY;
      for (int i = 0; i < 200; i++) {
        status = i % 2 == 0 ? HealthStatus.HEALTHY : HealthStatus.UNHEALTHY;
        producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(Topics.HEALTH_STATE.name(), key,
            HealthState.newBuilder().setStatus(status).setSince(Instant.now()).build())).get();
      }
      String last = status == HealthStatus.HEALTHY ? "10.1.0.100" : "10.9.0.1";
      await("the last flip served").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .until(() -> answer(edge), last::equals);
      double elapsedMs = (System.nanoTime() - t0) / 1e6;
      assertThat(builds.count() - before).as("snapshots over %.0f ms of flips", elapsedMs)
          .isPositive().isLessThanOrEqualTo((long) (elapsedMs / 50) + 2);
    }
  }

  private static String answer(EdgeApp edge) throws Exception {
    return answer(edge, "api.example.internal.");
  }

  private static String answer(EdgeApp edge, String name) throws Exception {
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", edge.port()));
    resolver.setTimeout(Duration.ofSeconds(2));
    Message m = resolver.send(Message.newQuery(Record.newRecord(Name.fromConstantString(name), Type.A, DClass.IN)));
    assertThat(m.getRcode()).isEqualTo(Rcode.NOERROR);
    return m.getSection(Section.ANSWER).get(0).rdataToString();
  }

  private static void health(EmbeddedKafka kafka, SchemaRegistryClient client, HealthStatus status) throws Exception {
    EntityKey key = new EntityKey(EntityKind.FORWARDING_RULE, "fr-orders");
    send(kafka, client, Topics.HEALTH_STATE, key, HealthState.newBuilder().setStatus(status).setSince(Instant.now()).build());
  }
}
