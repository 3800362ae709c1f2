package io.healthmesh.streams.output;

import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The topology's own counters (Prometheus names once exported: healthmesh_..._total). */
public final class Metrics {
  private final MeterRegistry registry;
  private final Counter applied;
  private final Counter outOfOrder;
  private final Counter stale;
  private final Counter heartbeats;
  private final Counter rerouted;
  private final Counter configRerouted;
  private final Timer lag;
  private final Map<String, Margin> sourceMargins = new ConcurrentHashMap<>();
  private final Map<String, Margin> compositeMargins = new ConcurrentHashMap<>();

  /** A registered margin gauge and the tags it was registered with. */
  private record Margin(Gauge gauge, AtomicInteger value, String region, String style) {}

  public Metrics(MeterRegistry registry) {
    this.registry = registry;
    this.applied = registry.counter("healthmesh.probes.applied");
    this.outOfOrder = registry.counter("healthmesh.probes.ignored", "reason", "out_of_order");
    this.stale = registry.counter("healthmesh.endpoints.stale");
    this.heartbeats = registry.counter("healthmesh.probes.heartbeats");
    this.rerouted = Counter.builder("healthmesh.probes.rerouted")
        .description("probe results read on another partition than their service's, moved there").register(registry);
    this.configRerouted = Counter.builder("healthmesh.config.rerouted")
        .description("backend services written to another partition than their name's, moved there").register(registry);
    // Probes are what operators publish by the million: their dead letters read 0 from the start,
    // so that a dashboard or an alert on them sees a series before the first one.
    for (DeadLetterReason reason : DeadLetterReason.values()) {
      deadLetters(Topics.PROBE_RESULTS.name(), reason);
    }
    this.lag = Timer.builder("healthmesh.pipeline.lag")
        .description("From the event time of the record that triggered a state to its publication")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofMinutes(10)).register(registry);
  }

  public void applied() {
    applied.increment();
  }

  public void outOfOrder() {
    outOfOrder.increment();
  }

  public void stale() {
    stale.increment();
  }

  public void heartbeat() {
    heartbeats.increment();
  }

  public void rerouted(String topic) {
    (topic.equals(Topics.PROBE_RESULTS.name()) ? rerouted : configRerouted).increment();
  }

  /** How long after its triggering event a state was published: the pipeline's lag. */
  public void published(Instant eventTime) {
    lag.record(Math.max(0, System.currentTimeMillis() - eventTime.toEpochMilli()), TimeUnit.MILLISECONDS);
  }

  /**
   * The health source's margin to its thresholds (see {@code Aggregation.margin}); a null region
   * means the source is gone.
   */
  public void sourceMargin(String source, String region, int margin) {
    gauge(sourceMargins, "healthmesh.health.source.margin", "source", source, region, null, margin,
        "Healthy endpoints a health source can lose before it fails its policy (negative: missing)");
  }

  /**
   * The composite's margin to its style (see {@code Aggregation.compositeMargin}); a null region
   * means the composite is gone.
   */
  public void compositeMargin(String composite, String region, String style, int margin) {
    gauge(compositeMargins, "healthmesh.composite.margin", "composite", composite, region, style, margin,
        "Healthy sources a composite health check can lose before it fails its style (negative: missing, R-OP-4)");
  }

  /** R-OP-3: an endpoint held UNHEALTHY for flapping ({@code started}), or released. */
  public void flapDamping(boolean started) {
    registry.counter("healthmesh.endpoints.suppressed", "event", started ? "started" : "ended").increment();
  }

  public void deadLettered(String topic, DeadLetterReason reason) {
    deadLetters(topic, reason).increment();
  }

  private Counter deadLetters(String topic, DeadLetterReason reason) {
    return registry.counter("healthmesh.dead.letters", "topic", topic, "reason", reason.name());
  }

  public void transition(EntityKind kind, HealthStatus to) {
    registry.counter("healthmesh.transitions", "kind", kind.name(), "to", to.name()).increment();
  }

  /** Sets a per-entity margin gauge, registering it again when its tags change; null region removes it. */
  private void gauge(Map<String, Margin> margins, String meter, String tag, String name, String region,
      String style, int margin, String description) {
    Margin current = margins.get(name);
    if (current != null && (region == null || !region.equals(current.region())
        || !Objects.equals(style, current.style()))) {
      registry.remove(current.gauge());
      margins.remove(name);
      current = null;
    }
    if (region == null) {
      return;
    }
    if (current == null) {
      AtomicInteger value = new AtomicInteger();
      Gauge.Builder<AtomicInteger> b = Gauge.builder(meter, value, Number::doubleValue)
          .description(description).tag(tag, name).tag("region", region);
      current = new Margin((style == null ? b : b.tag("style", style)).register(registry), value, region, style);
      margins.put(name, current);
    }
    current.value().set(margin);
  }

  public MeterRegistry registry() {
    return registry;
  }
}
