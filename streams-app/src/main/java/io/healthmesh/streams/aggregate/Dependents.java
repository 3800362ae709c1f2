package io.healthmesh.streams.aggregate;

import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthSource;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.TransitionCause;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.streams.codec.AggregateInput;
import io.healthmesh.streams.codec.AggregateInput.Kind;
import io.healthmesh.streams.output.Causes;
import io.healthmesh.streams.output.Metrics;
import io.healthmesh.streams.output.Publisher;
import io.healthmesh.streams.rules.Aggregation;
import io.healthmesh.streams.rules.ConfigRules;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * Re-evaluates exactly what depends on an input (R-AGG-6), in dependency order: services and
 * policies, then the sources on them (R-CH-1), the composites on those (R-CH-4, R-OP-4), and the
 * consumers whose PSC NEGs connect to a changed destination (R-CH-8).
 */
final class Dependents {
  private final Tables tables;
  private final Publisher publisher;
  private final ConsumerFailovers consumers;
  private final Metrics metrics;

  Dependents(Tables tables, Publisher publisher, ConsumerFailovers consumers, Metrics metrics) {
    this.tables = tables;
    this.publisher = publisher;
    this.consumers = consumers;
    this.metrics = metrics;
  }

  void evaluate(Affected a, TransitionCause.Builder cause, Instant time) {
    for (String service : a.services) {
      publishService(service, cause, time);
      a.sources.addAll(tables.sourcesByService.keysReferringTo(service));
      a.consumers.add(service);
    }
    for (String policy : a.policies) {
      a.sources.addAll(tables.sourcesByPolicy.keysReferringTo(policy));
    }
    for (String source : a.sources) {
      publishSource(source, cause, time);
      a.composites.addAll(tables.compositesBySource.keysReferringTo(source));
    }
    for (String composite : a.composites) {
      publishComposite(composite, cause, time);
      CompositeHealthCheck c = tables.composites.get(composite);
      if (c != null) {
        a.destinations.add(c.getHealthDestination());
      }
    }
    // A load balancer's own health (R-DNSHC-2/3) is judged in the per-service stage; here a
    // rule only matters as a composite's destination.
    a.destinations.addAll(a.forwardingRules);
    for (String destination : a.destinations) {
      a.consumers.addAll(tables.consumersByRule.keysReferringTo(destination));
    }
    for (String consumer : a.consumers) {
      consumers.publish(consumer, cause, time);
    }
  }

  private void publishService(String name, TransitionCause.Builder cause, Instant time) {
    ServiceSnapshot s = tables.services.get(name);
    if (s == null) {
      return;
    }
    Aggregation.Counts counts = counts(name);
    HealthStatus status = Aggregation.status(counts, Aggregation.DEFAULT);
    publisher.publish(new EntityKey(EntityKind.BACKEND_SERVICE, name), status, counts, s.getConfig().getRegion(),
        copy(cause).setHealthyPercentThreshold(Aggregation.DEFAULT.healthyPercent())
            .setMinHealthyThreshold(Aggregation.DEFAULT.minHealthy())
            .setDetail(Causes.detail(counts, Aggregation.DEFAULT, "default thresholds (R-AGG-1, R-AGG-2)")), time);
  }

  /** R-CH-1: a source's state is its service's state under its policy. */
  private void publishSource(String name, TransitionCause.Builder cause, Instant time) {
    EntityKey key = new EntityKey(EntityKind.HEALTH_SOURCE, name);
    HealthSource source = tables.sources.get(name);
    if (source == null) {
      publisher.delete(key, time);
      metrics.sourceMargin(name, null, 0);
      return;
    }
    ServiceSnapshot service = tables.services.get(source.getBackendService());
    HealthAggregationPolicy policy = tables.policies.get(source.getHealthAggregationPolicy());
    if (service == null || policy == null) {
      publisher.publish(key, HealthStatus.UNKNOWN, new Aggregation.Counts(0, 0, 0), source.getRegion(),
          copy(cause).setDetail("waiting for " + (service == null ? "backend service " + source.getBackendService()
              : "policy " + source.getHealthAggregationPolicy())), time);
      return;
    }
    Aggregation.Thresholds t = new Aggregation.Thresholds(policy.getHealthyPercentThreshold(),
        policy.getMinHealthyThreshold(), false);
    Aggregation.Counts counts = counts(source.getBackendService());
    metrics.sourceMargin(name, source.getRegion(), Aggregation.margin(counts, t));
    publisher.publish(key, Aggregation.status(counts, t), counts, source.getRegion(),
        copy(cause).setHealthyPercentThreshold(t.healthyPercent()).setMinHealthyThreshold(t.minHealthy())
            .setPolicyName(policy.getName())
            .setPolicyVersion(tables.configOffsets.get(AggregateInput.key(Kind.POLICY, policy.getName())))
            .setDetail(Causes.detail(counts, t, "policy " + policy.getName() + " (R-AGG-2, R-AGG-3)")), time);
  }

  /** R-CH-4, R-OP-4: the sources' states under the composite's style, three-valued. */
  private void publishComposite(String name, TransitionCause.Builder cause, Instant time) {
    CompositeHealthCheck c = tables.composites.get(name);
    for (EntityKind kind : List.of(EntityKind.COMPOSITE_HEALTH_CHECK, EntityKind.DRY_RUN_COMPOSITE_HEALTH_CHECK)) {
      if (c == null || kind != ConfigRules.compositeKind(c)) {
        publisher.delete(new EntityKey(kind, name), time); // gone, or moved between live and dry run (R-OP-5)
      }
    }
    if (c == null) {
      metrics.compositeMargin(name, null, null, 0);
      return;
    }
    EntityKey key = new EntityKey(ConfigRules.compositeKind(c), name);
    Function<String, HealthStatus> statusOf = s -> tables.sources.get(s) == null ? HealthStatus.UNKNOWN
        : publisher.statusOf(EntityKind.HEALTH_SOURCE, s);
    Aggregation.Counts counts = Aggregation.count(c.getHealthSources().stream().map(statusOf).toList());
    Aggregation.Style style = Aggregation.Style.of(c, statusOf);
    metrics.compositeMargin(name, c.getRegion(), style.name(), Aggregation.compositeMargin(counts, style));
    publisher.publish(key, Aggregation.composite(counts, style), counts, c.getRegion(),
        copy(cause).setPolicyName(name)
            .setPolicyVersion(tables.configOffsets.get(AggregateInput.key(Kind.COMPOSITE, name)))
            .setDetail(compositeDetail(counts, style, c.getCriticalSources())), time);
  }

  private Aggregation.Counts counts(String service) {
    ServiceSnapshot s = tables.serviceCounts.get(service);
    return s == null ? new Aggregation.Counts(0, 0, 0) : new Aggregation.Counts(s.getHealthy(), s.getUnhealthy(), s.getUnknown());
  }

  static TransitionCause.Builder copy(TransitionCause.Builder cause) {
    return TransitionCause.newBuilder(cause);
  }

  /**
   * "2 of 3 sources HEALTHY, 1 UNHEALTHY, 0 UNKNOWN (R-CH-4)", and under another style or with
   * critical sources "...; needs 2 HEALTHY (AT_LEAST_N), critical db HEALTHY (R-OP-4)".
   */
  private static String compositeDetail(Aggregation.Counts c, Aggregation.Style style, List<String> critical) {
    String counts = c.healthy() + " of " + c.total() + " sources HEALTHY, " + c.unhealthy() + " UNHEALTHY, "
        + c.unknown() + " UNKNOWN";
    if (style.name().equals("ALL") && critical.isEmpty()) {
      return counts + " (R-CH-4)";
    }
    StringBuilder b = new StringBuilder(counts).append("; needs ").append(style.required()).append(" HEALTHY (")
        .append(style.name()).append(')');
    for (int i = 0; i < critical.size(); i++) {
      b.append(i == 0 ? ", critical " : ", ").append(critical.get(i)).append(' ').append(style.critical().get(i));
    }
    return b.append(" (R-OP-4)").toString();
  }
}
