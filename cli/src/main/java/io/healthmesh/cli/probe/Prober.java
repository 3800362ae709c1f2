package io.healthmesh.cli.probe;

import io.healthmesh.cli.config.Catalog;
import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.config.BackendService;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.KafkaRefusal;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active prober: checks every endpoint the configuration names at its health check's interval,
 * each at its own phase within the interval so checks are spread out, with at most
 * {@code concurrency} checks in flight ({@link Schedule}), and publishes every result. It re-reads the configuration
 * periodically and reschedules what changed, and sends heartbeats to every partition so that the
 * topology's event time moves on when nothing else is probed (R-EP-4).
 */
public final class Prober implements AutoCloseable {
  /** The kinds of resources the prober takes its targets from; it reads no other configuration. */
  public static final Set<ResourceKind> KINDS = EnumSet.of(ResourceKind.BACKEND_SERVICE, ResourceKind.RESOURCE_RECORD_SET);
  private static final Logger LOG = LoggerFactory.getLogger(Prober.class);
  private final ConfigTopics config;
  private final Producer<String, ProbeResult> producer;
  /** Verifying with the JDK's roots until {@link #trusting} says otherwise. */
  private volatile Checker checker = new Checker(ProberTls.of(null, false));
  private final String name;
  private final String region;
  private final int concurrency;
  /** The checks that hold a thread until done (HTTP2, GRPC); the event loops make the rest. */
  private final ThreadPoolExecutor waiting;
  private volatile Schedule schedule;
  private final ScheduledThreadPoolExecutor control = new ScheduledThreadPoolExecutor(1);
  private final Counter healthy;
  private final Counter unhealthy;
  private final Counter publishErrors;
  private final Timer latency;
  private final Timer lateness;
  private final Counter skipped;
  private volatile Function<RuntimeException, String> explain = RuntimeException::getMessage;
  private volatile boolean configured;
  /** The configuration the schedule was made from. */
  private List<List<?>> lastRead;
  private volatile String refusedRead;
  private volatile String refusedWrite;
  private final Publishing publishing = new Publishing(Duration.ofSeconds(30), System::nanoTime);

  /** @param region only backend services of this region (and no external endpoints); null for all */
  public Prober(ConfigTopics config, Producer<String, ProbeResult> producer, String name, int concurrency,
      String region, MeterRegistry meters) {
    this.config = config;
    this.region = region;
    this.producer = producer;
    this.name = name;
    this.concurrency = concurrency;
    AtomicInteger threads = new AtomicInteger();
    this.waiting = new ThreadPoolExecutor(concurrency, concurrency, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> new Thread(r, "prober-check-" + threads.incrementAndGet()));
    waiting.allowCoreThreadTimeOut(true);
    this.healthy = Counter.builder("healthmesh_prober_checks").tag("result", "success").register(meters);
    this.unhealthy = Counter.builder("healthmesh_prober_checks").tag("result", "failure").register(meters);
    this.publishErrors = Counter.builder("healthmesh_prober_publish_errors").register(meters);
    this.latency = Timer.builder("healthmesh_prober_check_duration").publishPercentileHistogram().register(meters);
    // A prober that falls behind its schedule reports stale health: this says by how much.
    this.lateness = Timer.builder("healthmesh_prober_check_lateness")
        .description("How long after its scheduled time each check started").publishPercentileHistogram()
        .register(meters);
    this.skipped = Counter.builder("healthmesh_prober_checks_skipped")
        .description("Checks not made because the target's previous check was still waiting for a place")
        .register(meters);
    meters.gauge("healthmesh_prober_targets", this, Prober::targets);
  }

  /**
   * How a broker's refusal is told (who was refused, what the prober needs): it is logged as an
   * ERROR and readiness says it, since a prober that cannot read its targets or publish its
   * results checks for nothing.
   */
  public Prober explainingRefusals(Function<RuntimeException, String> explain) {
    this.explain = explain;
    return this;
  }

  /** Which certificates its TLS checks trust (R-PQ-5); before {@link #start}. */
  public Prober trusting(ProberTls tls) {
    if (schedule != null) {
      throw new IllegalStateException("the schedule runs on the checker's loops: trust is set before start");
    }
    checker.close();
    this.checker = new Checker(tls);
    return this;
  }

  /** Why the prober is not checking and publishing, or null when it is. */
  public String notReady() {
    if (refusedRead != null) {
      return refusedRead;
    }
    if (refusedWrite != null) {
      return refusedWrite;
    }
    String stalled = publishing.stalled();
    if (stalled != null) {
      return stalled;
    }
    return configured ? null : "the configuration has not been read yet";
  }

  /** The broker's refusal of the last configuration read, or null. */
  public String refused() {
    return refusedRead;
  }

  /** Reads the configuration now, then again every {@code refresh}; heartbeats every {@code heartbeat}. */
  public Prober start(Duration refresh, Duration heartbeat) {
    schedule = new Schedule(checker.timers(), concurrency, name, this::check, lateness, skipped);
    refresh();
    control.scheduleWithFixedDelay(this::refresh, refresh.toMillis(), refresh.toMillis(), TimeUnit.MILLISECONDS);
    control.scheduleAtFixedRate(this::heartbeat, 0, heartbeat.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  public int targets() {
    Schedule s = schedule;
    return s == null ? 0 : s.targets().size();
  }

  private void refresh() {
    try {
      List<String> warnings = new ArrayList<>();
      Catalog catalog = config.read(KINDS, warnings);
      warnings.forEach(w -> LOG.warn("config: {}", w));
      List<BackendService> services = catalog.<BackendService>values(ResourceKind.BACKEND_SERVICE).stream()
          .filter(s -> region == null || region.equals(s.getRegion())).toList();
      // lists, by name (the catalog's order), so that two reads compare by content
      List<ResourceRecordSet> recordSets = region == null
          ? List.copyOf(catalog.<ResourceRecordSet>values(ResourceKind.RESOURCE_RECORD_SET)) : List.of();
      List<List<?>> read = List.of(services, recordSets);
      if (!read.equals(lastRead)) { // nearly every refresh: nothing changed, nothing to reschedule
        schedule.set(Target.all(services, recordSets));
        lastRead = read;
      }
      configured = true;
      refusedRead = null;
    } catch (RuntimeException e) {
      refusedRead = refusal(e);
      if (refusedRead == null) {
        LOG.warn("cannot read the configuration, checking what was configured before: {}", e.toString());
      }
    }
  }

  /** Starts a check of {@code t}; publishes its outcome and runs {@code done} once it is complete. */
  private void check(Target t, Runnable done) {
    Instant at = Instant.now();
    Checker c = checker;
    CompletableFuture<Checker.Outcome> outcome = Checker.waits(t.spec())
        ? CompletableFuture.supplyAsync(() -> c.start(t).join(), waiting) : c.start(t);
    // HTTP checks complete on an event loop, which then publishes: the producer's send only queues
    // the checker words every failure as an outcome: an exception here is the publishing's own
    outcome.thenAccept(o -> publish(t, at, o)).whenComplete((nothing, e) -> {
      done.run();
      if (e != null) {
        publishErrors.increment();
        LOG.warn("result of {}/{} not published: {}", t.key(), t.endpointId(), e.toString());
      }
    });
  }

  private void publish(Target t, Instant at, Checker.Outcome outcome) {
    (outcome.success() ? healthy : unhealthy).increment();
    latency.record(Duration.ofNanos(outcome.latencyMicros() * 1000));
    ProbeResult result = ProbeResult.newBuilder().setBackendService(t.backendService()).setEndpointId(t.endpointId())
        .setSuccess(outcome.success()).setEventTime(at).setProber(name).setLatencyMicros(outcome.latencyMicros())
        .setDetail(outcome.detail()).build();
    send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, at.toEpochMilli(), t.key(), result));
  }

  private void heartbeat() {
    try {
      publishing.sent();
      // a heartbeat's failure is not logged each second: readiness and the error count say it
      Heartbeats.send(producer, name, Instant.now(), (metadata, e) -> {
        if (!delivered(e)) {
          refused(e);
        }
      });
    } catch (RuntimeException e) {
      publishing.failed(e);
      publishErrors.increment();
      LOG.warn("heartbeat not sent: {}", e.toString());
    }
  }

  private void send(ProducerRecord<String, ProbeResult> record) {
    publishing.sent();
    producer.send(record, (metadata, e) -> {
      if (!delivered(e) && !refused(e)) {
        LOG.warn("probe result for {} not published: {}", record.key(), e.toString());
      }
    });
  }

  /** Whether a send was acknowledged; its failure is counted, and remembered for readiness. */
  private boolean delivered(Exception e) {
    if (e == null) {
      publishing.acked();
      refusedWrite = null;
      return true;
    }
    publishErrors.increment();
    publishing.failed(e);
    return false;
  }

  /** Whether a send's failure was the broker's refusal, which readiness then says. */
  private boolean refused(Exception e) {
    String refused = refusal(e);
    if (refused != null) {
      refusedWrite = refused;
    }
    return refused != null;
  }

  /** The explained refusal, logged once while it lasts; null when {@code e} is not a refusal. */
  private String refusal(Exception e) {
    return KafkaRefusal.of(e).map(r -> {
      String why = explain.apply(r);
      if (!why.equals(refusedRead) && !why.equals(refusedWrite)) {
        LOG.error("{}", why);
      }
      return why;
    }).orElse(null);
  }

  @Override
  public void close() {
    control.shutdownNow();
    if (schedule != null) {
      schedule.cancel();
    }
    waiting.shutdownNow();
    try {
      waiting.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    checker.close();
    producer.close(Duration.ofSeconds(10));
  }
}
