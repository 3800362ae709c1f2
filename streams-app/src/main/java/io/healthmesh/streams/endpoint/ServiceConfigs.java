package io.healthmesh.streams.endpoint;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.Endpoint;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.AvroDeserializer;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.codec.Origin;
import io.healthmesh.streams.output.DeadLetters;
import io.healthmesh.streams.output.Metrics;
import io.healthmesh.streams.output.Out;
import io.healthmesh.streams.rules.ConfigRules;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * A backend service's configuration, validated, applied to its endpoints at once (R-AGG-6: a
 * removed endpoint's state is deleted, the rest regrouped by their new positions) and handed on.
 */
final class ServiceConfigs {
  private final ProcessorContext<String, Out> context;
  private final AvroDeserializer<BackendService> decoder;
  private final EndpointTable endpoints;
  private final Owners owners;
  private final EndpointPublisher publisher;
  private final ServiceCounts counts;
  private final LoadBalancers loadBalancers;
  private final Metrics metrics;

  ServiceConfigs(ProcessorContext<String, Out> context, AvroDeserializer<BackendService> decoder,
      EndpointTable endpoints, Owners owners, EndpointPublisher publisher, ServiceCounts counts,
      LoadBalancers loadBalancers, Metrics metrics) {
    this.context = context;
    this.decoder = decoder;
    this.endpoints = endpoints;
    this.owners = owners;
    this.publisher = publisher;
    this.counts = counts;
    this.loadBalancers = loadBalancers;
    this.metrics = metrics;
  }

  /** {@code value} null deletes the service. */
  void apply(String name, byte[] value, Origin origin) {
    ServiceSnapshot current = owners.service(name);
    Instant time = Instant.ofEpochMilli(origin.timestamp());
    if (value == null) {
      if (current != null) {
        removeEndpoints(current.getConfig(), Set.of(), origin);
        owners.deleteService(name);
        counts.forward(new ServiceSnapshot(name, null, false, 0, 0, 0, time, origin.topic(), origin.partition(),
            origin.offset()));
        loadBalancers.judgeAll(name, null, TransitionReason.CONFIG_DELETED, origin, time);
      }
      return;
    }
    BackendService config;
    try {
      config = decoder.deserialize(origin.topic(), value);
    } catch (AvroDeserializationException e) {
      deadLetter(DeadLetters.reasonOf(e), e.at(origin.partition(), origin.offset()).getMessage(), origin, name, value);
      return;
    }
    List<String> problems = ConfigRules.backendService(name, config);
    if (!problems.isEmpty()) {
      deadLetter(DeadLetterReason.INVALID, "BackendService " + name + " rejected, previous version stays: "
          + String.join("; ", problems), origin, name, value);
      return;
    }
    if (current != null && config.equals(current.getConfig())) {
      return; // applied twice: nothing changes
    }
    Set<String> kept = new HashSet<>();
    config.getEndpoints().forEach(e -> kept.add(e.getId()));
    if (current != null && current.getConfig() != null) {
      removeEndpoints(current.getConfig(), kept, origin); // R-AGG-6: membership re-evaluates at once
    }
    ServiceSnapshot next = counts.snapshot(config, false, time, origin);
    Map<String, Integer> positions = owners.putService(name, next);
    endpoints.regroup(name, positions::get);
    counts.forward(next);
    loadBalancers.judgeAll(name, next, TransitionReason.MEMBERSHIP_CHANGE, origin, time);
  }

  private void removeEndpoints(BackendService old, Set<String> kept, Origin origin) {
    if (old == null) {
      return;
    }
    for (Endpoint e : old.getEndpoints()) {
      if (!kept.contains(e.getId())) {
        endpoints.remove(old.getName(), e.getId());
        publisher.removed(new EntityKey(EntityKind.ENDPOINT, EndpointTable.key(old.getName(), e.getId())),
            origin.timestamp());
      }
    }
  }

  private void deadLetter(DeadLetterReason reason, String message, Origin origin, String key, byte[] value) {
    DeadLetters.forward(context, metrics, Topics.CONFIG_DLQ.name(), reason, message, origin, key, value);
  }
}
