package io.healthmesh.xds;

import io.envoyproxy.controlplane.cache.Resources;
import io.envoyproxy.controlplane.cache.SnapshotResources;
import io.envoyproxy.controlplane.cache.VersionedResource;
import io.envoyproxy.controlplane.cache.v3.Snapshot;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.Secret;
import java.util.Map;

/**
 * What every xDS client is served at one moment: the library's snapshot, with each type held in
 * a {@link ResourceTable} so that resources are versioned one by one rather than all together.
 */
final class XdsSnapshot extends Snapshot {
  static final XdsSnapshot EMPTY = new XdsSnapshot(ResourceTable.empty(), ResourceTable.empty(),
      ResourceTable.empty(), ResourceTable.empty());
  private static final ResourceTable<Secret> NO_SECRETS = ResourceTable.empty();

  private final ResourceTable<Cluster> clusters;
  private final ResourceTable<ClusterLoadAssignment> endpoints;
  private final ResourceTable<Listener> listeners;
  private final ResourceTable<RouteConfiguration> routes;

  XdsSnapshot(ResourceTable<Cluster> clusters, ResourceTable<ClusterLoadAssignment> endpoints,
      ResourceTable<Listener> listeners, ResourceTable<RouteConfiguration> routes) {
    this.clusters = clusters;
    this.endpoints = endpoints;
    this.listeners = listeners;
    this.routes = routes;
  }

  @Override
  public ResourceTable<Cluster> clusters() {
    return clusters;
  }

  @Override
  public ResourceTable<ClusterLoadAssignment> endpoints() {
    return endpoints;
  }

  @Override
  public ResourceTable<Listener> listeners() {
    return listeners;
  }

  @Override
  public ResourceTable<RouteConfiguration> routes() {
    return routes;
  }

  @Override
  public SnapshotResources<Secret> secrets() {
    return NO_SECRETS;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Map<String, VersionedResource<?>> versionedResources(Resources.ResourceType type) {
    return (Map) table(type).versionedResources();
  }

  private ResourceTable<?> table(Resources.ResourceType type) {
    return switch (type) {
      case CLUSTER -> clusters;
      case ENDPOINT -> endpoints;
      case LISTENER -> listeners;
      case ROUTE -> routes;
      default -> NO_SECRETS;
    };
  }
}
