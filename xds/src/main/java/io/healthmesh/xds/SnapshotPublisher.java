package io.healthmesh.xds;

import io.envoyproxy.controlplane.cache.v3.SimpleCache;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns the consumers a change touched into a new snapshot for every client (one node group: what
 * a client is served does not depend on who it is), rebuilding only their resources.
 */
final class SnapshotPublisher {
  static final String GROUP = "healthmesh";

  private final SimpleCache<String> cache;
  private volatile XdsSnapshot current = XdsSnapshot.EMPTY;
  /** Consumer -> the NEGs left out of its load assignment and why (R-XDS-2). */
  private final Map<String, List<String>> leftOut = new ConcurrentHashMap<>();

  SnapshotPublisher(SimpleCache<String> cache) {
    this.cache = cache;
  }

  /** Rebuilds {@code touched} consumers from the catalog and serves the result. */
  XdsSnapshot publish(ConsumerCatalog catalog, Collection<String> touched) {
    Map<String, Cluster> clusters = new HashMap<>();
    Map<String, ClusterLoadAssignment> endpoints = new HashMap<>();
    Map<String, Listener> listeners = new HashMap<>();
    Map<String, RouteConfiguration> routes = new HashMap<>();
    XdsSnapshot before = current;
    for (String name : touched) {
      List<String> problems = new ArrayList<>();
      List<ConsumerResources.Locality> localities = catalog.localities(name, problems);
      boolean gone = localities == null;
      endpoints.put(name, gone ? null : ConsumerResources.loadAssignment(name, localities));
      // The cluster, listener and route depend on the name alone: built when a consumer comes or goes.
      if (gone || !before.clusters().resources().containsKey(name)) {
        clusters.put(name, gone ? null : ConsumerResources.cluster(name));
        listeners.put(name, gone ? null : ConsumerResources.listener(name));
        routes.put(name, gone ? null : ConsumerResources.route(name));
      }
      if (problems.isEmpty()) {
        leftOut.remove(name);
      } else {
        leftOut.put(name, List.copyOf(problems));
      }
    }
    XdsSnapshot next = new XdsSnapshot(before.clusters().with(clusters), before.endpoints().with(endpoints),
        before.listeners().with(listeners), before.routes().with(routes));
    current = next;
    cache.setSnapshot(GROUP, next);
    return next;
  }

  /** Every consumer served or served before, for a rebuild from a whole new read of the topics. */
  List<String> served() {
    return current.clusters().names();
  }

  XdsSnapshot current() {
    return current;
  }

  /** NEGs left out of load assignments now, as {@code consumer: problem}. */
  int negsLeftOut() {
    return leftOut.values().stream().mapToInt(List::size).sum();
  }

  Map<String, List<String>> leftOut() {
    return Map.copyOf(leftOut);
  }
}
