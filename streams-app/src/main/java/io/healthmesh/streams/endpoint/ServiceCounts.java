package io.healthmesh.streams.endpoint;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.Endpoint;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.streams.codec.AggregateInput;
import io.healthmesh.streams.codec.Origin;
import io.healthmesh.streams.output.Emitter;
import io.healthmesh.streams.output.Out;
import java.time.Instant;

/**
 * A service's endpoints counted by state, handed to the aggregate stage and to the load balancers
 * in front of the service whenever an endpoint's state or the service's membership changes (R-AGG-6).
 */
final class ServiceCounts {
  private final EndpointTable endpoints;
  private final Emitter emitter;
  private final LoadBalancers loadBalancers;

  ServiceCounts(EndpointTable endpoints, Emitter emitter, LoadBalancers loadBalancers) {
    this.endpoints = endpoints;
    this.emitter = emitter;
    this.loadBalancers = loadBalancers;
  }

  /** An endpoint of the service changed state: new counts onwards. */
  void changed(BackendService config, Instant eventTime, Origin origin) {
    ServiceSnapshot counts = snapshot(config, true, eventTime, origin);
    forward(counts);
    TransitionReason reason = origin.offset() < 0 ? TransitionReason.STALE : TransitionReason.MEMBER_STATE;
    loadBalancers.judgeAll(config.getName(), counts, reason, origin, eventTime);
  }

  /** The service's endpoints counted by state; an endpoint without results is UNKNOWN (R-AGG-3). */
  ServiceSnapshot snapshot(BackendService config, boolean countsOnly, Instant eventTime, Origin origin) {
    int healthy = 0;
    int unhealthy = 0;
    int unknown = 0;
    for (Endpoint e : config.getEndpoints()) {
      EndpointState r = endpoints.get(config.getName(), e.getId());
      HealthStatus s = r == null ? HealthStatus.UNKNOWN : r.status;
      switch (s) {
        case HEALTHY -> healthy++;
        case UNHEALTHY -> unhealthy++;
        default -> unknown++;
      }
    }
    return new ServiceSnapshot(config.getName(), countsOnly ? null : config, countsOnly, healthy, unhealthy, unknown,
        eventTime, origin.topic(), origin.partition(), origin.offset());
  }

  void forward(ServiceSnapshot snapshot) {
    String key = AggregateInput.key(AggregateInput.Kind.SERVICE, snapshot.getName());
    emitter.forward(key, new Out.Snapshot(snapshot), snapshot.getEventTime().toEpochMilli());
  }
}
