package io.healthmesh.streams.aggregate;

import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthSource;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.streams.codec.AggregateInput;
import io.healthmesh.streams.codec.AggregateInput.Kind;
import io.healthmesh.streams.codec.TopologySerdes;
import io.healthmesh.streams.output.Publisher;
import io.healthmesh.streams.rules.ConfigRules;
import io.healthmesh.streams.store.MirroredStore;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Applies one input of the aggregate stage to its table: a service snapshot as it is (the
 * per-service stage validated it), a configuration record once {@link ConfigRules} accepts it.
 * Notes in {@link Affected} what changed, for {@link Dependents}.
 */
final class ConfigChanges {
  private final TopologySerdes serdes;
  private final Tables tables;
  private final Publisher publisher;

  ConfigChanges(TopologySerdes serdes, Tables tables, Publisher publisher) {
    this.serdes = serdes;
    this.tables = tables;
    this.publisher = publisher;
  }

  void service(String name, ServiceSnapshot snapshot, Instant time, Affected affected) {
    if (snapshot.getCountsOnly()) {
      tables.serviceCounts.put(name, snapshot);
    } else if (snapshot.getConfig() == null) {
      tables.services.delete(name);
      tables.serviceCounts.delete(name);
      publisher.delete(new EntityKey(EntityKind.BACKEND_SERVICE, name), time);
    } else {
      tables.services.put(name, snapshot);
      tables.serviceCounts.put(name, ServiceSnapshot.newBuilder(snapshot).setConfig(null).setCountsOnly(true).build());
    }
    affected.services.add(name);
  }

  /**
   * Validates and stores one configuration record ({@code value} null deletes it); returns the
   * problems, empty when it was applied.
   *
   * @param offset its offset in its topic, kept as the version that causes name
   */
  List<String> config(Kind kind, String name, byte[] value, long offset, Affected affected) {
    List<String> problems = switch (kind) {
      case POLICY -> {
        HealthAggregationPolicy p = value == null ? null : serdes.policies.deserialize(kind.topic, value);
        yield accept(tables.policies, name, p, p == null ? List.of() : ConfigRules.policy(name, p), affected.policies);
      }
      case SOURCE -> {
        HealthSource s = value == null ? null : serdes.sources.deserialize(kind.topic, value);
        ServiceSnapshot service = s == null ? null : tables.services.get(s.getBackendService());
        yield accept(tables.sources, name, s, s == null ? List.of() : ConfigRules.healthSource(name, s,
            service == null ? null : service.getConfig(), tables.policies.get(s.getHealthAggregationPolicy())),
            affected.sources);
      }
      case COMPOSITE -> {
        CompositeHealthCheck c = value == null ? null : serdes.composites.deserialize(kind.topic, value);
        CompositeHealthCheck old = tables.composites.get(name);
        List<String> found = c == null ? List.of() : ConfigRules.composite(name, c,
            c.getHealthSources().stream().map(tables.sources::get).filter(Objects::nonNull).toList(),
            ConfigRules.holdsDestination(c) ? tables.compositeHolding(c.getHealthDestination(), name) : null,
            tables.forwardingRules.get(c.getHealthDestination()));
        if (found.isEmpty() && old != null) {
          affected.destinations.add(old.getHealthDestination());
        }
        yield accept(tables.composites, name, c, found, affected.composites);
      }
      case FORWARDING_RULE -> {
        ForwardingRule r = value == null ? null : serdes.forwardingRules.deserialize(kind.topic, value);
        yield accept(tables.forwardingRules, name, r, r == null ? List.of() : ConfigRules.forwardingRule(name, r),
            affected.forwardingRules);
      }
      default -> throw new IllegalStateException("unexpected " + kind);
    };
    if (problems.isEmpty()) {
      tables.configOffsets.put(AggregateInput.key(kind, name), offset);
    }
    return problems;
  }

  /** Stores a valid record (null deletes) and notes it as affected; returns the problems. */
  private static <V> List<String> accept(MirroredStore<V> store, String name, V value,
      List<String> problems, Set<String> affected) {
    if (problems.isEmpty()) {
      store.putOrDelete(name, value);
      affected.add(name);
    }
    return problems;
  }
}
