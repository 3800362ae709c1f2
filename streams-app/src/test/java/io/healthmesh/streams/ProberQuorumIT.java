package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Docs/rules.md section 11 on the real broker, in real time: three probers of one endpoint, one of
 * them cut off from it, then two, then one that stops, then all of them.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ProberQuorumIT {
  private static final List<String> FLEET = List.of("us-east/p1", "eu-west/p1", "asia/p1");

  @Test
  void decidesAcrossProbers_onTheBrokersClock_R_PQ_1_R_PQ_2(@TempDir Path dir) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(1).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      // Two results in a row either way; a prober without a result for 3 s drops out.
      BackendService service = BackendService.newBuilder(Harness.service("orders", 1))
          .setHealthCheck(HealthCheckSpec.newBuilder().setCheckIntervalSec(1).setHealthyThreshold(2)
              .setUnhealthyThreshold(2).setStaleAfterIntervals(3).build()).build();
      try (HealthStreamsApp app = BrokerIO.topology(kafka, registry, client, dir, "prober-quorum-it", service);
          KafkaProducer<String, ProbeResult> probes = BrokerIO.producer(kafka, Topics.PROBE_RESULTS, client)) {
        Rounds rounds = new Rounds(probes);

        rounds.run(FLEET, Duration.ofSeconds(4), "asia/p1"::equals);
        assertThat(transitions(kafka, client)).as("one cut-off prober flips nothing")
            .extracting(HealthTransition::getNewStatus).containsExactly(HealthStatus.HEALTHY);

        rounds.run(FLEET, Duration.ofSeconds(3), Set.of("asia/p1", "eu-west/p1")::contains);
        rounds.run(FLEET, Duration.ofSeconds(3), p2 -> false);
        rounds.run(List.of("us-east/p1", "eu-west/p1"), Duration.ofSeconds(5), p2 -> false); // asia stops
        assertThat(transitions(kafka, client)).as("two of three: down; all three: up; one stopping: nothing")
            .extracting(HealthTransition::getNewStatus)
            .containsExactly(HealthStatus.HEALTHY, HealthStatus.UNHEALTHY, HealthStatus.HEALTHY);
        List<String> views = new ArrayList<>();
        BrokerIO.read(kafka, client, Topics.HEALTH_STATE, r -> {
          HealthState s = r.value();
          if (r.key().getName().equals("orders/vm-1") && s != null) {
            views.clear();
            s.getProbers().forEach(v -> views.add(v.getProber() + "=" + v.getStatus()));
          }
        });
        assertThat(views).as("the views that decided it: asia had one success of the two it needs").containsExactly(
            "asia/p1=UNHEALTHY", "eu-west/p1=HEALTHY", "us-east/p1=HEALTHY");

        rounds.heartbeats(Duration.ofSeconds(6)); // every prober stops; time goes on
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(transitions(kafka, client))
            .extracting(HealthTransition::getNewStatus)
            .containsExactly(HealthStatus.HEALTHY, HealthStatus.UNHEALTHY, HealthStatus.HEALTHY, HealthStatus.UNKNOWN));
        assertThat(transitions(kafka, client).get(3).getCause().getReason()).isEqualTo(TransitionReason.STALE);
      }
    }
  }

  private static List<HealthTransition> transitions(EmbeddedKafka kafka, SchemaRegistryClient client) throws Exception {
    Thread.sleep(1_500); // the topology commits what it found within a commit interval
    List<HealthTransition> vm1 = new ArrayList<>();
    BrokerIO.read(kafka, client, Topics.HEALTH_TRANSITIONS, r -> {
      if (r.key().getName().equals("orders/vm-1")) {
        vm1.add(r.value());
      }
    });
    return vm1;
  }

  /** Probers checking vm-1 every 200 ms, each result dated now; the broker's append time is the clock. */
  private record Rounds(KafkaProducer<String, ProbeResult> probes) {
    void run(List<String> probers, Duration length, Predicate<String> fails) throws Exception {
      long end = System.nanoTime() + length.toNanos();
      while (System.nanoTime() < end) {
        for (String prober : probers) {
          probes.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), "orders", ProbeResult.newBuilder()
              .setBackendService("orders").setEndpointId("vm-1").setSuccess(!fails.test(prober))
              .setEventTime(Instant.now()).setProber(prober).build()));
        }
        Thread.sleep(200);
      }
      probes.flush();
    }

    void heartbeats(Duration length) throws Exception {
      long end = System.nanoTime() + length.toNanos();
      while (System.nanoTime() < end) {
        probes.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), "orders", ProbeResult.newBuilder()
            .setType(ProbeRecordType.HEARTBEAT).setEventTime(Instant.now()).setProber("us-east/p1").build()));
        Thread.sleep(500);
      }
      probes.flush();
    }
  }
}
