package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.cli.config.ResourceKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** apply, validate, get and delete over a real broker and registry, in the order a user meets them. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ConfigCommandsIT {
  private static final Path DEMO = Path.of("../examples/demo.yaml").toAbsolutePath();
  private static final List<String> CONFIG_TOPICS =
      Arrays.stream(ResourceKind.values()).map(k -> k.topic().name()).toList();
  private static Cli cli;

  @BeforeAll
  static void start() {
    cli = new Cli();
  }

  @AfterAll
  static void stop() {
    cli.close();
  }

  @Test
  @Order(1)
  void writesNothing_whenOneDocumentOfTheFileIsInvalid(@TempDir Path dir) throws Exception {
    var before = cli.endOffsets(CONFIG_TOPICS);
    Path file = dir.resolve("bad.yaml");
    Files.writeString(file, Files.readString(DEMO).replace("weight: 75", "weight: 7500"));
    Cli.Run run = cli.run("apply", "-f", file.toString());
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains(file + ":13: routingPolicy.wrr.items[1].weight: 7500 is outside 0..1000 (R-WRR-1)")
        .contains("1 problem(s); nothing was applied");
    assertThat(cli.endOffsets(CONFIG_TOPICS)).isEqualTo(before);
  }

  @Test
  @Order(2)
  void createsEveryResource_thenChangesNothing_whenAppliedTwice() throws Exception {
    Cli.Run first = cli.run("apply", "-f", DEMO.toString());
    assertThat(first.exit()).as(first.err()).isZero();
    assertThat(first.out()).contains("BackendService/orders-use1 created", "ResourceRecordSet/internal/api.example.internal./A created");
    var after = cli.endOffsets(CONFIG_TOPICS);

    Cli.Run second = cli.run("apply", "-f", DEMO.toString());
    assertThat(second.exit()).isZero();
    assertThat(second.out()).contains("BackendService/orders-use1 unchanged").doesNotContain("created", "configured");
    assertThat(cli.endOffsets(CONFIG_TOPICS)).isEqualTo(after);
  }

  @Test
  @Order(3)
  void printsDocumentsThatApplyTakesBack_whenGetAllAsYaml(@TempDir Path dir) throws Exception {
    Cli.Run get = cli.run("get", "all", "-o", "yaml");
    assertThat(get.exit()).isZero();
    assertThat(get.out()).contains("kind: BackendService\nname: orders-use1\n");
    Path copy = dir.resolve("copy.yaml");
    Files.writeString(copy, get.out());
    Cli.Run reapply = cli.run("apply", "-f", copy.toString());
    assertThat(reapply.exit()).isZero();
    assertThat(reapply.out().lines()).hasSize(18).allMatch(l -> l.endsWith(" unchanged"));
  }

  @Test
  @Order(4)
  void updatesOneResource_whenAFieldChanges() {
    String policy = "kind: HealthAggregationPolicy\nname: majority-us-east1\nregion: us-east1\n"
        + "healthyPercentThreshold: 75\nminHealthyThreshold: 3\n";
    Cli.Run run = cli.runWithInput(policy, "apply", "-f", "-");
    assertThat(run.out().strip()).isEqualTo("HealthAggregationPolicy/majority-us-east1 configured");
    Cli.Run get = cli.run("get", "hap", "majority-us-east1", "-o", "json");
    assertThat(get.out()).contains("\"healthyPercentThreshold\" : 75", "\"minHealthyThreshold\" : 3");
    assertThat(cli.run("get", "policy-that-is-not", "x").exit()).isEqualTo(2);
    assertThat(cli.run("get", "hap", "nope").exit()).isEqualTo(1);
  }

  @Test
  @Order(5)
  void rewritesAResource_whenItsLatestRecordCannotBeRead() throws Exception {
    String policy = "kind: HealthAggregationPolicy\nname: majority-us-east1\nregion: us-east1\n"
        + "healthyPercentThreshold: 75\nminHealthyThreshold: 3\n";
    try (org.apache.kafka.clients.producer.KafkaProducer<String, byte[]> raw = new org.apache.kafka.clients.producer
        .KafkaProducer<>(java.util.Map.of("bootstrap.servers", cli.kafka.bootstrapServers()),
        new org.apache.kafka.common.serialization.StringSerializer(),
        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
      raw.send(new org.apache.kafka.clients.producer.ProducerRecord<>(ResourceKind.HEALTH_AGGREGATION_POLICY.topic().name(),
          "majority-us-east1", new byte[] {0, 0, 0, 0, 99, 1, 2})).get(); // any producer may write garbage
    }
    Cli.Run get = cli.run("get", "hap", "majority-us-east1");
    assertThat(get.err()).contains("skipped").contains("the version before it stays in force");
    // a table of every policy is made from the records' bytes as they are read: the same verdict
    Cli.Run table = cli.run("get", "hap");
    assertThat(table.err()).contains("skipped").contains("the version before it stays in force");
    assertThat(table.out()).contains("majority-us-east1");

    Cli.Run repair = cli.runWithInput(policy, "apply", "-f", "-");
    assertThat(repair.out().strip()).isEqualTo("HealthAggregationPolicy/majority-us-east1 repaired");
    Cli.Run again = cli.runWithInput(policy, "apply", "-f", "-");
    assertThat(again.out().strip()).isEqualTo("HealthAggregationPolicy/majority-us-east1 unchanged");
    assertThat(again.err()).doesNotContain("skipped");
  }

  @Test
  @Order(6)
  void showsAndRepairsTheVersionTheEdgesKeepInForce_whenTheLatestRecordBreaksARule() throws Exception {
    String key = "internal/api.example.internal./A";
    String topic = ResourceKind.RESOURCE_RECORD_SET.topic().name();
    io.healthmesh.schemas.SchemaRegistryClient client = registryClient();
    // The valid version as stored, then a version any producer may write that breaks R-WRR-1.
    org.apache.kafka.clients.consumer.ConsumerRecord<String, byte[]> valid = latestRaw(topic, key);
    io.healthmesh.config.ResourceRecordSet bad = (io.healthmesh.config.ResourceRecordSet) ResourceKind.RESOURCE_RECORD_SET
        .topic().valueSerde(client).deserializer().deserialize(topic, valid.value());
    bad.getRoutingPolicy().getWrr().getItems().get(0).setWeight(7500);
    long badOffset;
    try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<>(java.util.Map.<String, Object>of(
        "bootstrap.servers", cli.kafka.bootstrapServers()), new org.apache.kafka.common.serialization.StringSerializer(),
        ResourceKind.RESOURCE_RECORD_SET.topic().valueSerde(client).serializer())) {
      badOffset = producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, valid.partition(), key,
          (org.apache.avro.specific.SpecificRecord) bad)).get().offset();
    }
    // What an edge writes when it rejects it (InForceAfterCompactionIT shows an edge doing so).
    writeInForce(client, io.healthmesh.events.ConfigInForce.newBuilder().setTopic(topic).setKey(key)
        .setPartition(valid.partition()).setInForceOffset(valid.offset())
        .setInForce(java.nio.ByteBuffer.wrap(valid.value())).setRejectedOffset(badOffset)
        .setProblems(List.of("routingPolicy.wrr.items[0].weight: 7500 is outside 0..1000 (R-WRR-1)"))
        .setRejectedAt(java.time.Instant.now()).build());

    Cli.Run get = cli.run("get", "rrs", key, "-o", "json");
    assertThat(get.exit()).isZero();
    assertThat(get.out()).as("the version in force, not the latest record").doesNotContain("7500");
    assertThat(get.err()).contains("breaks a rule", "R-WRR-1", "the edges keep the version at offset " + valid.offset());
    Cli.Run table = cli.run("get", "rrs");
    assertThat(table.out().lines().filter(l -> l.contains(" " + key + " ")).toList()).singleElement().asString()
        .contains("\"weight\":").doesNotContain("7500");
    assertThat(table.err()).contains("breaks a rule", "R-WRR-1");

    Cli.Run repair = cli.run("apply", "-f", DEMO.toString());
    assertThat(repair.out()).contains("ResourceRecordSet/" + key + " repaired");
    assertThat(cli.run("get", "rrs", key).err()).doesNotContain("breaks a rule");
  }

  @Test
  @Order(7)
  void leavesOutWhatTheTopologyRejected_soThatApplyIsNotBlockedByIt_R_CH_5() throws Exception {
    String topic = ResourceKind.COMPOSITE_HEALTH_CHECK.topic().name();
    io.healthmesh.schemas.SchemaRegistryClient client = registryClient();
    // Written past healthctl: a second composite on the destination of orders-use1-chc.
    long offset;
    int partition;
    try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<>(java.util.Map.<String, Object>of(
        "bootstrap.servers", cli.kafka.bootstrapServers()), new org.apache.kafka.common.serialization.StringSerializer(),
        ResourceKind.COMPOSITE_HEALTH_CHECK.topic().valueSerde(client).serializer())) {
      var written = producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, "dup-chc",
          (org.apache.avro.specific.SpecificRecord) io.healthmesh.config.CompositeHealthCheck.newBuilder().setName("dup-chc")
              .setRegion("us-east1").setHealthSources(List.of("orders-use1-src")).setHealthDestination("fr-orders-use1")
              .build())).get();
      offset = written.offset();
      partition = written.partition();
    }
    // What the topology writes when it rejects it (RejectionTest shows the topology doing so).
    try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<>(java.util.Map.<String, Object>of(
        "bootstrap.servers", cli.kafka.bootstrapServers()), new org.apache.kafka.common.serialization.StringSerializer(),
        io.healthmesh.schemas.Topics.CONFIG_DLQ.valueSerde(client).serializer())) {
      producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(io.healthmesh.schemas.Topics.CONFIG_DLQ.name(),
          "dup-chc", io.healthmesh.events.DeadLetter.newBuilder().setReason(io.healthmesh.events.DeadLetterReason.INVALID)
              .setMessage("COMPOSITE dup-chc rejected, previous version stays: healthDestination: 'fr-orders-use1' is"
                  + " already the destination of composite health check 'orders-use1-chc' (R-CH-5)")
              .setSourceTopic(topic).setSourcePartition(partition).setSourceOffset(offset).build())).get();
    }

    Cli.Run get = cli.run("get", "chc");
    assertThat(get.out()).contains("orders-use1-chc").doesNotContain("dup-chc");
    assertThat(get.err()).contains("dup-chc", "rejected by the topology", "R-CH-5");
    Cli.Run apply = cli.run("apply", "-f", DEMO.toString());
    assertThat(apply.exit()).as(apply.err()).isZero();
    assertThat(apply.out()).contains("CompositeHealthCheck/orders-use1-chc unchanged");
  }

  @Test
  @Order(10)
  void showsNothing_whenNoVersionOfARecordSetIsInForce() throws Exception {
    String key = "internal/new.example.internal./A";
    String topic = ResourceKind.RESOURCE_RECORD_SET.topic().name();
    io.healthmesh.schemas.SchemaRegistryClient client = registryClient();
    var written = sendRaw(client, topic, key, io.healthmesh.config.ResourceRecordSet.newBuilder().setZone("internal")
        .setName("new.example.internal.").setType("A").setTtl(5).setRoutingPolicy(io.healthmesh.config.RoutingPolicy
            .newBuilder().setWrr(io.healthmesh.config.WrrPolicy.newBuilder().setItems(List.of(io.healthmesh.config.WrrItem
                .newBuilder().setWeight(7500).setRrdatas(List.of("10.9.9.9")).build())).build()).build()).build());
    // What an edge writes when a record breaks a rule and nothing came before it.
    writeInForce(client, io.healthmesh.events.ConfigInForce.newBuilder().setTopic(topic).setKey(key)
        .setPartition(written.partition()).setInForceOffset(-1).setInForce(null)
        .setRejectedOffset(written.offset()).setProblems(List.of("weight 7500 (R-WRR-1)"))
        .setRejectedAt(java.time.Instant.now()).build());

    Cli.Run get = cli.run("get", "rrs", key);
    assertThat(get.exit()).as("not in force: not found").isEqualTo(1);
    assertThat(get.err()).contains("no version of it is in force", "R-WRR-1");
  }

  private static io.healthmesh.schemas.SchemaRegistryClient registryClient() {
    return new io.healthmesh.schemas.RestSchemaRegistryClient(cli.registry.url());
  }

  private void writeInForce(io.healthmesh.schemas.SchemaRegistryClient client, io.healthmesh.events.ConfigInForce entry)
      throws Exception {
    try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<>(java.util.Map.<String, Object>of(
        "bootstrap.servers", cli.kafka.bootstrapServers()), io.healthmesh.schemas.Topics.CONFIG_IN_FORCE.keySerde(client)
        .serializer(), io.healthmesh.schemas.Topics.CONFIG_IN_FORCE.valueSerde(client).serializer())) {
      producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(io.healthmesh.schemas.Topics.CONFIG_IN_FORCE.name(),
          entry.getTopic() + "|" + entry.getKey(), entry)).get();
    }
  }

  private org.apache.kafka.clients.producer.RecordMetadata sendRaw(io.healthmesh.schemas.SchemaRegistryClient client,
      String topic, String key, org.apache.avro.specific.SpecificRecord value) throws Exception {
    try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<>(java.util.Map.<String, Object>of(
        "bootstrap.servers", cli.kafka.bootstrapServers()), new org.apache.kafka.common.serialization.StringSerializer(),
        ResourceKind.RESOURCE_RECORD_SET.topic().valueSerde(client).serializer())) {
      return producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, key, value)).get();
    }
  }

  private org.apache.kafka.clients.consumer.ConsumerRecord<String, byte[]> latestRaw(String topic, String key) {
    org.apache.kafka.clients.consumer.ConsumerRecord<String, byte[]> latest = null;
    try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(java.util.Map.<String, Object>of(
        "bootstrap.servers", cli.kafka.bootstrapServers(), "isolation.level", "read_committed"),
        new org.apache.kafka.common.serialization.StringDeserializer(),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
      List<org.apache.kafka.common.TopicPartition> partitions = consumer.partitionsFor(topic).stream()
          .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      var end = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        for (var r : consumer.poll(java.time.Duration.ofMillis(200))) {
          if (key.equals(r.key())) {
            latest = r;
          }
        }
      }
    }
    return latest;
  }

  @Test
  @Order(8)
  void checksAgainstTheCluster_whenValidating() {
    String source = "kind: HealthSource\nname: s\nregion: us-east1\nbackendService: orders-use1\n"
        + "healthAggregationPolicy: majority-us-east1\n";
    assertThat(cli.runWithInput(source, "validate", "-f", "-").out()).contains("HealthSource/s valid, would be created");
    Cli.Run offline = cli.runWithInput(source, "validate", "--offline", "-f", "-");
    assertThat(offline.exit()).isEqualTo(2);
    assertThat(offline.err()).contains("<stdin>:1: backendService: no BackendService named 'orders-use1' (R-CH-1)");
  }

  @Test
  @Order(9)
  void refusesToDeleteAReferencedService_butDeletesItWithItsReferrers() throws Exception {
    var before = cli.endOffsets(CONFIG_TOPICS);
    Cli.Run refused = cli.run("delete", "bs", "orders-euw1");
    assertThat(refused.exit()).isEqualTo(2);
    assertThat(refused.err()).contains("HealthSource/orders-euw1-src (already applied): backendService: no BackendService"
        + " named 'orders-euw1' (R-CH-1)");
    assertThat(cli.endOffsets(CONFIG_TOPICS)).isEqualTo(before);

    Cli.Run all = cli.run("delete", "-f", DEMO.toString());
    assertThat(all.exit()).as(all.err()).isZero();
    assertThat(all.out().lines()).hasSize(18).allMatch(l -> l.endsWith(" deleted"));
    assertThat(cli.run("get", "all").out().lines()).hasSize(1); // the header only
    assertThat(cli.run("delete", "zone", "internal").exit()).isEqualTo(1);
    assertThat(cli.run("delete", "zone", "internal", "--ignore-not-found").exit()).isZero();
  }

  @Test
  @Order(100)
  void showsWhatApplyWouldChange_asAUnifiedDiff_andWritesNothing() throws Exception {
    String policy = "kind: HealthAggregationPolicy\nname: diffed\nregion: us-east1\nhealthyPercentThreshold: 50\n";
    Cli.Run created = cli.runWithInput(policy, "diff", "-f", "-");
    assertThat(created.exit()).as(created.err()).isEqualTo(1);
    assertThat(created.out()).startsWith("--- /dev/null\n+++ HealthAggregationPolicy/diffed (<stdin>:1)\n@@ -0,0 +1,")
        .contains("+name: diffed\n", "+healthyPercentThreshold: 50\n");
    assertThat(cli.run("get", "hap", "diffed").exit()).as("diff wrote nothing").isEqualTo(1);

    assertThat(cli.runWithInput(policy, "apply", "-f", "-").exit()).isZero();
    Cli.Run same = cli.runWithInput(policy, "diff", "-f", "-");
    assertThat(same.exit()).isZero();
    assertThat(same.out()).isEmpty();

    var before = cli.endOffsets(CONFIG_TOPICS);
    Cli.Run changed = cli.runWithInput(policy.replace("50", "70") + "minHealthyThreshold: 2\n", "diff", "-f", "-");
    assertThat(changed.exit()).isEqualTo(1);
    assertThat(changed.out()).contains("--- HealthAggregationPolicy/diffed (in force)\n"
        + "+++ HealthAggregationPolicy/diffed (<stdin>:1)\n", "-healthyPercentThreshold: 50\n",
        "+healthyPercentThreshold: 70\n+minHealthyThreshold: 2\n", " name: diffed\n");
    assertThat(cli.endOffsets(CONFIG_TOPICS)).isEqualTo(before);

    Cli.Run invalid = cli.runWithInput(policy.replace("50", "500"), "diff", "-f", "-");
    assertThat(invalid.exit()).isEqualTo(2);
    assertThat(invalid.err()).contains("(R-AGG-1)");
  }
  @Test
  @Order(101)
  void findsOneResourceInItsKeysPartition_andAMisplacedOneWithAWarning() throws Exception {
    // get of one resource reads only the partition apply put it in: KeyPartition must agree with the producer
    int records = 0;
    try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(java.util.Map.<String, Object>of(
        "bootstrap.servers", cli.kafka.bootstrapServers()), new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
      for (String topic : CONFIG_TOPICS) {
        List<org.apache.kafka.common.TopicPartition> partitions = consumer.partitionsFor(topic).stream()
            .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
        assertThat(partitions).hasSizeGreaterThan(1);
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        var end = consumer.endOffsets(partitions);
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
          for (var r : consumer.poll(java.time.Duration.ofMillis(200))) {
            if (r.key() != null) {
              assertThat(r.partition()).as(topic + " " + new String(r.key(), java.nio.charset.StandardCharsets.UTF_8))
                  .isEqualTo(io.healthmesh.schemas.KeyPartitions.partition(r.key(), partitions.size()));
              records++;
            }
          }
        }
      }
    }
    assertThat(records).isGreaterThan(18);

    String topic = ResourceKind.HEALTH_AGGREGATION_POLICY.topic().name();
    byte[] key = "misplaced".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    int elsewhere = (io.healthmesh.schemas.KeyPartitions.partition(key, 2) + 1) % 2;
    io.healthmesh.config.HealthAggregationPolicy policy = io.healthmesh.config.HealthAggregationPolicy.newBuilder()
        .setName("misplaced").setRegion("us-east1").setHealthyPercentThreshold(65).build();
    try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<>(java.util.Map.<String, Object>of(
        "bootstrap.servers", cli.kafka.bootstrapServers()), new org.apache.kafka.common.serialization.StringSerializer(),
        ResourceKind.HEALTH_AGGREGATION_POLICY.topic().valueSerde(registryClient()).serializer())) {
      producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, elsewhere, "misplaced",
          (org.apache.avro.specific.SpecificRecord) policy)).get();
    }
    Cli.Run get = cli.run("get", "hap", "misplaced", "-o", "json");
    assertThat(get.exit()).as(get.err()).isZero();
    assertThat(get.out()).contains("\"healthyPercentThreshold\" : 65");
    assertThat(get.err()).contains("HealthAggregationPolicy misplaced is in a partition of " + topic
        + " other than the one Kafka's default partitioner gives its key");
    assertThat(cli.run("get", "hap", "diffed").err()).isEmpty();
  }

  @Test
  @Order(102)
  void showsEachResourcesVersionInForce_whenTheTopicStillHoldsTheRecordsItReplaced() throws Exception {
    // Three applies of 3,000 record sets, as an operator's edits leave a topic until its segment
    // is compacted: enough records per partition that a read meets history between two fetches
    // and leaves the superseded records undecoded (Superseded).
    for (int ttl : new int[] {30, 31, 32}) {
      Cli.Run apply = cli.runWithInput(history(ttl), "apply", "-f", "-");
      assertThat(apply.exit()).as(apply.err()).isZero();
    }
    String topic = ResourceKind.RESOURCE_RECORD_SET.topic().name();
    io.healthmesh.schemas.SchemaRegistryClient client = registryClient();
    // Latest records that do not stand, and whose versions before them were superseded too.
    String unreadable = "hist/r7.hist.example./A";
    String rejected = "hist/r1500.hist.example./A";
    try (org.apache.kafka.clients.producer.KafkaProducer<String, byte[]> raw = new org.apache.kafka.clients.producer
        .KafkaProducer<>(java.util.Map.of("bootstrap.servers", cli.kafka.bootstrapServers()),
        new org.apache.kafka.common.serialization.StringSerializer(),
        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
      raw.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, unreadable, new byte[] {0, 0, 0, 0, 99}))
          .get();
    }
    var written = sendRaw(client, topic, rejected, io.healthmesh.config.ResourceRecordSet.newBuilder().setZone("hist")
        .setName("r1500.hist.example.").setType("A").setTtl(99).setRrdatas(List.of("10.9.9.9")).build());
    try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<>(java.util.Map.<String, Object>of(
        "bootstrap.servers", cli.kafka.bootstrapServers()), new org.apache.kafka.common.serialization.StringSerializer(),
        io.healthmesh.schemas.Topics.CONFIG_DLQ.valueSerde(client).serializer())) {
      producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(io.healthmesh.schemas.Topics.CONFIG_DLQ.name(),
          rejected, io.healthmesh.events.DeadLetter.newBuilder().setReason(io.healthmesh.events.DeadLetterReason.INVALID)
              .setMessage("RRS " + rejected + " rejected, previous version stays")
              .setSourceTopic(topic).setSourcePartition(written.partition()).setSourceOffset(written.offset()).build()))
          .get();
    }
    String removed = "kind: ResourceRecordSet\nzone: hist\nname: r2999.hist.example.\ntype: A\n";
    assertThat(cli.runWithInput(removed, "delete", "-f", "-").exit()).isZero();

    Cli.Run table = cli.run("get", "rrs");
    assertThat(table.exit()).as(table.err()).isZero();
    List<String> rows = table.out().lines().filter(l -> l.contains(".hist.example./A ")).toList();
    assertThat(rows).hasSize(2999).allMatch(l -> l.contains("\"ttl\":32"), "the last apply's version");
    assertThat(rows).noneMatch(l -> l.contains("r2999."));
    assertThat(table.err()).contains("skipped", "applying ResourceRecordSet " + unreadable + " rewrites it",
        rejected + ": its latest record", "rejected by the topology");

    Cli.Run yaml = cli.run("get", "rrs", "-o", "yaml");
    assertThat(yaml.out().split("\n---\n")).filteredOn(d -> d.contains("zone: hist")).hasSize(2999)
        .allMatch(d -> d.contains("ttl: 32"));

    Cli.Run again = cli.runWithInput(history(32), "apply", "-f", "-");
    assertThat(again.out().lines().filter(l -> !l.endsWith(" unchanged")).toList()).containsExactlyInAnyOrder(
        "ResourceRecordSet/" + unreadable + " repaired", "ResourceRecordSet/" + rejected + " repaired",
        "ResourceRecordSet/hist/r2999.hist.example./A created");
  }

  /** A zone and 3,000 record sets, with the given TTL. */
  private static String history(int ttl) {
    StringBuilder yaml = new StringBuilder("kind: ManagedZone\nname: hist\ndnsName: hist.example.\nnetworks: [127.0.0.0/8]\n");
    for (int i = 0; i < 3000; i++) {
      yaml.append("---\nkind: ResourceRecordSet\nzone: hist\nname: r").append(i).append(".hist.example.\ntype: A\nttl: ")
          .append(ttl).append("\nrrdatas: [10.0.").append(i / 250).append('.').append(i % 250 + 1).append("]\n");
    }
    return yaml.toString();
  }
}
