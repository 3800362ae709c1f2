package io.healthmesh.streams.aggregate;

import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthSource;
import io.healthmesh.config.PscBackend;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.streams.rules.ConfigRules;
import io.healthmesh.streams.store.MirroredStore;
import java.util.List;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The aggregate stage's tables, with the reverse indexes that follow the dependencies (R-AGG-6)
 * from what changed to what depends on it without scanning a table.
 */
final class Tables {
  final MirroredStore<ServiceSnapshot> services;
  final MirroredStore<ServiceSnapshot> serviceCounts;
  final MirroredStore<HealthAggregationPolicy> policies;
  final MirroredStore<HealthSource> sources;
  final MirroredStore<CompositeHealthCheck> composites;
  final MirroredStore<ForwardingRule> forwardingRules;
  final KeyValueStore<String, Long> configOffsets;
  final MirroredStore.Index<HealthSource> sourcesByService;
  final MirroredStore.Index<HealthSource> sourcesByPolicy;
  final MirroredStore.Index<CompositeHealthCheck> compositesBySource;
  /** Composites that hold a destination (R-CH-5), by it: at most one each once validated. */
  final MirroredStore.Index<CompositeHealthCheck> compositesByDestination;
  /** Consumer backend services by the forwarding rules their PSC NEGs connect to (R-CH-8). */
  final MirroredStore.Index<ServiceSnapshot> consumersByRule;

  Tables(ProcessorContext<?, ?> context) {
    services = new MirroredStore<>(context, AggregateStores.SERVICES);
    serviceCounts = new MirroredStore<>(context, AggregateStores.SERVICE_COUNTS);
    policies = new MirroredStore<>(context, AggregateStores.POLICIES);
    sources = new MirroredStore<>(context, AggregateStores.SOURCES);
    composites = new MirroredStore<>(context, AggregateStores.COMPOSITES);
    forwardingRules = new MirroredStore<>(context, AggregateStores.FORWARDING_RULES);
    configOffsets = context.getStateStore(AggregateStores.CONFIG_OFFSETS);
    sourcesByService = sources.index(s -> List.of(s.getBackendService()));
    sourcesByPolicy = sources.index(s -> List.of(s.getHealthAggregationPolicy()));
    compositesBySource = composites.index(CompositeHealthCheck::getHealthSources);
    compositesByDestination = composites.index(c -> ConfigRules.holdsDestination(c)
        ? List.of(c.getHealthDestination()) : List.of());
    consumersByRule = services.index(s -> s.getConfig() == null ? List.of()
        : s.getConfig().getPscBackends().stream().map(PscBackend::getForwardingRule).distinct().toList());
  }

  /** The composite that publishes to {@code destination}, other than {@code except}; null when none. */
  String compositeHolding(String destination, String except) {
    for (String name : compositesByDestination.keysReferringTo(destination)) {
      if (!name.equals(except)) {
        return name;
      }
    }
    return null;
  }
}
