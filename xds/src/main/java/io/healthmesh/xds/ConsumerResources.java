package io.healthmesh.xds;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.UInt32Value;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.AggregatedConfigSource;
import io.envoyproxy.envoy.config.core.v3.ApiVersion;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.ApiListener;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.Rds;
import java.util.List;

/**
 * The xDS resources of one consumer global backend service (R-XDS-1): a cluster whose endpoints
 * come over ADS, its load assignment (R-XDS-3, R-XDS-4), and for proxyless gRPC clients of
 * {@code xds:///NAME} a listener and a route configuration, all four named after the service.
 */
final class ConsumerResources {
  private static final ConfigSource ADS = ConfigSource.newBuilder()
      .setAds(AggregatedConfigSource.getDefaultInstance()).setResourceApiVersion(ApiVersion.V3).build();
  private static final HttpFilter ROUTER = HttpFilter.newBuilder().setName("envoy.filters.http.router")
      .setTypedConfig(Any.pack(Router.getDefaultInstance())).build();

  private ConsumerResources() {}

  static Cluster cluster(String name) {
    return Cluster.newBuilder().setName(name).setType(Cluster.DiscoveryType.EDS)
        .setEdsClusterConfig(Cluster.EdsClusterConfig.newBuilder().setEdsConfig(ADS))
        .setLbPolicy(Cluster.LbPolicy.ROUND_ROBIN)
        .setConnectTimeout(Duration.newBuilder().setSeconds(1)).build();
  }

  static Listener listener(String name) {
    HttpConnectionManager manager = HttpConnectionManager.newBuilder()
        .setRds(Rds.newBuilder().setConfigSource(ADS).setRouteConfigName(name)).addHttpFilters(ROUTER).build();
    return Listener.newBuilder().setName(name)
        .setApiListener(ApiListener.newBuilder().setApiListener(Any.pack(manager))).build();
  }

  static RouteConfiguration route(String name) {
    return RouteConfiguration.newBuilder().setName(name).addVirtualHosts(VirtualHost.newBuilder().setName(name)
        .addDomains("*").addRoutes(Route.newBuilder().setMatch(RouteMatch.newBuilder().setPrefix(""))
            .setRoute(RouteAction.newBuilder().setCluster(name)))).build();
  }

  /**
   * One locality per NEG with the published service's forwarding-rule address as its endpoint;
   * priorities follow the decision: its active regions first, in its order, then the others in
   * the service's preference order, so that priorities are contiguous from 0.
   */
  static ClusterLoadAssignment loadAssignment(String name, List<Locality> localities) {
    ClusterLoadAssignment.Builder cla = ClusterLoadAssignment.newBuilder().setClusterName(name);
    for (Locality l : localities) {
      cla.addEndpoints(LocalityLbEndpoints.newBuilder()
          .setLocality(io.envoyproxy.envoy.config.core.v3.Locality.newBuilder().setRegion(l.region()).setSubZone(l.neg()))
          .setPriority(l.priority())
          // gRPC leaves out a locality without weight; one endpoint per locality, so all weigh the same.
          .setLoadBalancingWeight(UInt32Value.of(1))
          .addLbEndpoints(LbEndpoint.newBuilder().setHealthStatus(l.health())
              .setEndpoint(Endpoint.newBuilder().setAddress(Address.newBuilder().setSocketAddress(
                  SocketAddress.newBuilder().setAddress(l.address()).setPortValue(l.port()))))));
    }
    return cla.build();
  }

  /** One NEG as a locality of the load assignment. */
  record Locality(String neg, String region, String address, int port, HealthStatus health, int priority) {}
}
