package io.healthmesh.edge;

import static io.healthmesh.edge.TopicRecords.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** While the broker is away the edge keeps answering, and its staleness says for how long. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BrokerOutageIT {
  private static final String STALENESS = "healthmesh.edge.snapshot.staleness.seconds";

  @Test
  void keepsAnsweringAndItsStalenessGrows_whileTheBrokerIsAway() throws Exception {
    Path dir = java.nio.file.Files.createTempDirectory("broker-outage");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(1).dataDir(dir).port(port).start();
    SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()));
    SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
    try {
      send(kafka, client, Topics.MANAGED_ZONES, "internal", ManagedZone.newBuilder().setName("internal")
          .setDnsName("example.internal.").setNetworks(List.of("127.0.0.0/8")).build());
      send(kafka, client, Topics.RESOURCE_RECORD_SETS, "internal/www.example.internal./A", ResourceRecordSet.newBuilder()
          .setZone("internal").setName("www.example.internal.").setType("A").setTtl(5)
          .setRrdatas(List.of("10.1.0.1")).build());
      Properties p = TopicRecords.edgeSettings(kafka, registry.url());
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      try (EdgeApp edge = EdgeApp.start(EdgeSettings.from(p), client, meters)) {
        edge.awaitReady(Duration.ofSeconds(60));
        SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", edge.port()));
        resolver.setTimeout(Duration.ofSeconds(2));
        awaitStaleness(meters, s -> s < 3, Duration.ofSeconds(20));

        kafka.close();
        Thread.sleep(8_000);
        assertThat(staleness(meters)).as("grows from the last moment the edge knew it was caught up")
            .isGreaterThanOrEqualTo(6);
        assertThat(answer(resolver)).as("the last snapshot keeps answering").isEqualTo(Rcode.NOERROR);

        kafka = EmbeddedKafka.builder().partitions(1).dataDir(dir).port(port).start();
        awaitStaleness(meters, s -> s < 3, Duration.ofSeconds(60));
        assertThat(answer(resolver)).isEqualTo(Rcode.NOERROR);
      }
    } finally {
      registry.close();
      kafka.close();
    }
  }

  private static int answer(SimpleResolver resolver) throws Exception {
    return resolver.send(Message.newQuery(Record.newRecord(Name.fromConstantString("www.example.internal."), Type.A,
        DClass.IN))).getRcode();
  }

  private static double staleness(SimpleMeterRegistry meters) {
    return meters.get(STALENESS).gauge().value();
  }

  private static void awaitStaleness(SimpleMeterRegistry meters, java.util.function.DoublePredicate ok, Duration timeout) {
    org.awaitility.Awaitility.await("staleness").atMost(timeout).pollInterval(Duration.ofMillis(200))
        .until(() -> staleness(meters), ok::test);
  }
}
