package io.healthmesh.streams.aggregate;

import io.healthmesh.config.PscBackend;
import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.NegState;
import io.healthmesh.events.TransitionCause;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.streams.output.Emitter;
import io.healthmesh.streams.output.Out;
import io.healthmesh.streams.output.Publisher;
import io.healthmesh.streams.rules.Aggregation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;

/** R-CH-8: each PSC NEG takes its published service's composite state; the consumer fails over. */
final class ConsumerFailovers {
  private final Tables tables;
  private final Publisher publisher;
  private final Emitter emitter;
  private final KeyValueStore<String, ConsumerFailover> failovers;

  ConsumerFailovers(ProcessorContext<?, ?> context, Tables tables, Publisher publisher, Emitter emitter) {
    this.tables = tables;
    this.publisher = publisher;
    this.emitter = emitter;
    this.failovers = context.getStateStore(AggregateStores.FAILOVERS);
  }

  void publish(String name, TransitionCause.Builder cause, Instant time) {
    ServiceSnapshot consumer = tables.services.get(name);
    List<PscBackend> backends = consumer == null || consumer.getConfig() == null
        ? List.of() : consumer.getConfig().getPscBackends();
    ConsumerFailover old = failovers.get(name);
    if (backends.isEmpty()) {
      if (old != null) {
        old.getNegs().forEach(n -> publisher.delete(new EntityKey(EntityKind.CONSUMER_NEG, name + "/" + n.getName()), time));
        failovers.delete(name);
        emitter.forward(name, new Out.Failover(name, null), time.toEpochMilli());
      }
      return;
    }
    List<NegState> negs = new ArrayList<>();
    for (PscBackend b : backends) {
      String composite = tables.compositeHolding(b.getForwardingRule(), null);
      HealthStatus status = composite == null ? HealthStatus.UNKNOWN
          : publisher.statusOf(EntityKind.COMPOSITE_HEALTH_CHECK, composite);
      negs.add(new NegState(b.getNegName(), b.getRegion(), status));
      publisher.publish(new EntityKey(EntityKind.CONSUMER_NEG, name + "/" + b.getNegName()), status,
          new Aggregation.Counts(0, 0, 0), b.getRegion(), Dependents.copy(cause).setPolicyName(composite)
              .setDetail(composite == null ? "no composite health check publishes to " + b.getForwardingRule() + " (R-CH-8)"
                  : "state of composite health check " + composite + " (R-CH-8)"), time);
    }
    List<String> active = activeRegions(negs);
    ConsumerFailover decision = new ConsumerFailover(time, active, negs);
    if (old == null || !old.getActiveRegions().equals(active) || !old.getNegs().equals(negs)) {
      failovers.put(name, decision);
      emitter.forward(name, new Out.Failover(name, decision), time.toEpochMilli());
    }
  }

  /** HEALTHY NEGs in preference order; else the UNKNOWN ones; else all of them (fail open). */
  static List<String> activeRegions(List<NegState> negs) {
    for (HealthStatus wanted : List.of(HealthStatus.HEALTHY, HealthStatus.UNKNOWN)) {
      List<String> regions = negs.stream().filter(n -> n.getStatus() == wanted).map(NegState::getRegion).distinct().toList();
      if (!regions.isEmpty()) {
        return regions;
      }
    }
    return negs.stream().map(NegState::getRegion).distinct().toList();
  }
}
