package io.healthmesh.cli.launch;

import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.cli.probe.Heartbeats;
import io.healthmesh.config.BackendService;
import io.healthmesh.config.Endpoint;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for probers in the demo: one per region of the sample, as a fleet runs them. Every
 * second each reports every endpoint of every configured backend service healthy unless
 * {@link Faults} says it is failing, for every prober or only for the one that is cut off from it
 * (R-PQ-1), and sends a heartbeat to every partition so that quiet partitions still move event
 * time on (staleness, R-EP-4).
 */
final class ProbeSimulator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProbeSimulator.class);
  private static final long REFRESH_MILLIS = 10_000;
  private final KafkaProducer<String, ProbeResult> producer;
  private final ConfigTopics config;
  private List<BackendService> services = List.of();
  private long refreshed;
  private final Faults faults;
  private final Thread thread;
  private volatile boolean running = true;

  ProbeSimulator(String bootstrap, SchemaRegistryClient registry, ConfigTopics config, Faults faults) {
    this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.LINGER_MS_CONFIG, 5), Topics.PROBE_RESULTS.keySerde(registry).serializer(),
        Topics.PROBE_RESULTS.valueSerde(registry).serializer());
    this.config = config;
    this.faults = faults;
    this.thread = new Thread(this::run, "demo-probe-simulator");
    thread.setDaemon(true);
  }

  ProbeSimulator start() {
    thread.start();
    return this;
  }

  private void run() {
    while (running) {
      long tick = System.currentTimeMillis();
      try {
        refreshServices(tick);
        Instant now = Instant.ofEpochMilli(tick);
        for (String region : SampleConfig.REGIONS) {
          for (BackendService service : services) {
            for (Endpoint e : service.getEndpoints()) {
              boolean failing = faults.failing(region, service.getName(), e.getId());
              producer.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, tick, service.getName(),
                  ProbeResult.newBuilder().setBackendService(service.getName()).setEndpointId(e.getId())
                      .setSuccess(!failing).setEventTime(now).setProber(prober(region)).setLatencyMicros(800)
                      .setDetail(failing ? "connection refused (simulated)" : "HTTP 200").build()));
            }
          }
        }
        Heartbeats.send(producer, prober(SampleConfig.REGIONS.get(0)), now);
        producer.flush();
      } catch (RuntimeException e) {
        LOG.warn("probe simulator: {}", e.toString());
      }
      sleepUntil(tick + 1000);
    }
  }

  /** The name of the demo's prober in {@code region}. */
  static String prober(String region) {
    return region + "/demo-prober";
  }

  /** Follows the configuration, so that a change to a sample service's endpoints is probed as applied. */
  private void refreshServices(long now) {
    if (now - refreshed >= REFRESH_MILLIS) {
      // Only the services' topic: beside 100,000 record sets, reading everything every 10 s kept a core busy.
      services = simulated(config.<BackendService>latest(ResourceKind.BACKEND_SERVICE, new ArrayList<>()));
      refreshed = now;
    }
  }

  /**
   * Only the sample configuration's services: a service a user applies is theirs to probe
   * (`probe publish`, `probe run`), and simulated results every second would override theirs.
   */
  static List<BackendService> simulated(Collection<BackendService> applied) {
    Set<String> sample = new HashSet<>();
    SampleConfig.resources().stream().filter(r -> r.kind() == ResourceKind.BACKEND_SERVICE)
        .forEach(r -> sample.add(r.key()));
    return applied.stream().filter(s -> sample.contains(s.getName())).toList();
  }

  private void sleepUntil(long time) {
    long wait = time - System.currentTimeMillis();
    if (wait > 0) {
      try {
        Thread.sleep(wait);
      } catch (InterruptedException e) {
        running = false;
      }
    }
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(3000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close();
  }
}
