package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.DeadLetter;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
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
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * R-EP-4, R-EP-5 on the real broker: a prober whose clock runs 25 s fast beside an honest one,
 * and a heartbeat dated ten years ahead. The broker's append time, not a prober's, is the clock.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ProberClockIT {

  @Test
  void aSkewedProberChangesNothingButItsOwnEndpoint_R_EP_4(@TempDir Path dir) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(1).start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      // Stale after 3 s without a result: 3 intervals of 1 s.
      BackendService service = BackendService.newBuilder(Harness.service("orders", 2, 1, 1))
          .setHealthCheck(HealthCheckSpec.newBuilder().setCheckIntervalSec(1).setHealthyThreshold(1)
              .setUnhealthyThreshold(1).setStaleAfterIntervals(3).build()).build();
      try (HealthStreamsApp app = BrokerIO.topology(kafka, registry, client, dir, "prober-clock-it", service);
          KafkaProducer<String, ProbeResult> probes = BrokerIO.producer(kafka, Topics.PROBE_RESULTS, client)) {
        long end = System.nanoTime() + Duration.ofSeconds(8).toNanos();
        while (System.nanoTime() < end) {
          Instant now = Instant.now();
          probes.send(probe("vm-1", false, now)); // honest, failing every 200 ms
          // 25 s fast, in the event time and in the record timestamp its producer asks for.
          Instant fast = now.plusSeconds(25);
          probes.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, fast.toEpochMilli(), "orders",
              probe("vm-2", true, fast).value()));
          Thread.sleep(200);
        }
        Instant far = Instant.now().plus(Duration.ofDays(3650));
        probes.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, far.toEpochMilli(), "orders",
            ProbeResult.newBuilder().setType(ProbeRecordType.HEARTBEAT).setEventTime(far).setProber("broken").build()));
        probes.flush();

        List<HealthTransition> vm1 = new ArrayList<>();
        List<DeadLetter> dead = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (dead.isEmpty() && System.nanoTime() < deadline) {
          vm1.clear();
          BrokerIO.read(kafka, client, Topics.HEALTH_TRANSITIONS, r -> {
            if (r.key().getName().equals("orders/vm-1")) {
              vm1.add(r.value());
            }
          });
          dead.clear();
          BrokerIO.read(kafka, client, Topics.PROBE_RESULTS_DLQ, r -> dead.add(r.value()));
        }
        assertThat(vm1).as("never stale: DNS never fails open toward it").extracting(HealthTransition::getNewStatus)
            .containsExactly(HealthStatus.UNHEALTHY);
        assertThat(dead).singleElement().satisfies(d -> assertThat(d.getMessage()).contains("heartbeat", "R-EP-4"));
        List<TimestampType> types = new ArrayList<>();
        BrokerIO.read(kafka, client, Topics.PROBE_RESULTS, r -> types.add(r.timestampType()));
        assertThat(types).isNotEmpty().containsOnly(TimestampType.LOG_APPEND_TIME);
      }
    }
  }

  private static ProducerRecord<String, ProbeResult> probe(String vm, boolean success, Instant at) {
    return new ProducerRecord<>(Topics.PROBE_RESULTS.name(), "orders", ProbeResult.newBuilder().setBackendService("orders")
        .setEndpointId(vm).setSuccess(success).setEventTime(at).setProber(vm.equals("vm-1") ? "honest" : "fast").build());
  }
}
