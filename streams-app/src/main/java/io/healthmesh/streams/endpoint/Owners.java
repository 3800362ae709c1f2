package io.healthmesh.streams.endpoint;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.Endpoint;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.internal.ExternalEndpointRef;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.streams.store.MirroredStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * Whose endpoint a probe is about and how it is judged: the backend services of this task, and
 * for an external endpoint the record sets that health check it (R-DNSHC-4).
 */
final class Owners {
  private final MirroredStore<ServiceSnapshot> services;
  /** {@code address|recordSet}: which record sets health check an external endpoint, and how. */
  private final MirroredStore<ExternalEndpointRef> externalRefs;
  private final Map<String, ServiceView> views = new HashMap<>();

  Owners(ProcessorContext<?, ?> context) {
    this.services = new MirroredStore<>(context, PerServiceStores.SERVICES);
    this.externalRefs = new MirroredStore<>(context, PerServiceStores.EXTERNAL_REFS);
  }

  /** An endpoint's owner: its entity on the health topics, and the check it is judged by. */
  record Owner(String service, String endpoint, String region, HealthCheckSpec spec, String policyName,
      BackendService config, int ordinal) {
    EntityKey entity() {
      return service.isEmpty() ? new EntityKey(EntityKind.EXTERNAL_ENDPOINT, endpoint)
          : new EntityKey(EntityKind.ENDPOINT, EndpointTable.key(service, endpoint));
    }
  }

  /** Null when the configuration does not know the endpoint; {@code service} is "" for an external endpoint. */
  Owner of(String service, String endpoint) {
    if (service.isEmpty()) {
      var refs = externalRefs.prefix(endpoint + "|");
      if (refs.isEmpty()) {
        return null;
      }
      ExternalEndpointRef ref = refs.values().iterator().next();
      return new Owner("", endpoint, "", ref.getHealthCheck(), ref.getRecordSet(), null, 0);
    }
    ServiceView view = views.computeIfAbsent(service, this::view);
    Integer ordinal = view == null ? null : view.ordinals().get(endpoint);
    if (ordinal == null) {
      return null;
    }
    BackendService config = view.config();
    return new Owner(service, endpoint, config.getRegion(), config.getHealthCheck(), service, config, ordinal);
  }

  ServiceSnapshot service(String name) {
    return services.get(name);
  }

  /** Stores the service's new configuration and returns each endpoint's position in it. */
  Map<String, Integer> putService(String name, ServiceSnapshot snapshot) {
    services.put(name, snapshot);
    views.remove(name);
    return views.computeIfAbsent(name, this::view).ordinals();
  }

  void deleteService(String name) {
    services.delete(name);
    views.remove(name);
  }

  /** Notes that a record set health checks (or stopped checking) an external endpoint; true while any still does. */
  boolean external(String address, ExternalEndpointRef ref) {
    String key = address + "|" + ref.getRecordSet();
    if (!ref.getRemoved()) {
      externalRefs.put(key, ref);
      return true;
    }
    externalRefs.delete(key);
    return !externalRefs.prefix(address + "|").isEmpty();
  }

  /** A service's valid configuration with each endpoint's position in it; null when there is none. */
  private ServiceView view(String service) {
    ServiceSnapshot snapshot = services.get(service);
    if (snapshot == null || snapshot.getConfig() == null) {
      return null;
    }
    Map<String, Integer> ordinals = new HashMap<>();
    List<Endpoint> list = snapshot.getConfig().getEndpoints();
    for (int i = 0; i < list.size(); i++) {
      ordinals.putIfAbsent(list.get(i).getId(), i);
    }
    return new ServiceView(snapshot.getConfig(), ordinals);
  }

  /** Cached per service, as every probe needs it; dropped when the service's configuration changes. */
  private record ServiceView(BackendService config, Map<String, Integer> ordinals) {}
}
