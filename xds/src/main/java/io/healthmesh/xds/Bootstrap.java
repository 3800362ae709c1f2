package io.healthmesh.xds;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Bootstrap files that point a client at xDS servers: gRPC's (its {@code GRPC_XDS_BOOTSTRAP}
 * file, for {@code xds:///NAME} channels) and Envoy's (ADS for clusters and routes, with one
 * listener per consumer backend service, since an Envoy proxy needs a port to listen on).
 */
public final class Bootstrap {
  private Bootstrap() {}

  /** @param servers {@code host:port} of each xDS server; a client fails over among them in order */
  public static String grpc(List<String> servers, String nodeId) {
    String list = servers.stream().map(s -> "    {\"server_uri\": \"" + s
        + "\", \"channel_creds\": [{\"type\": \"insecure\"}], \"server_features\": [\"xds_v3\"]}")
        .collect(Collectors.joining(",\n"));
    return """
        {
          "xds_servers": [
        %s
          ],
          "node": {"id": "%s", "locality": {}}
        }
        """.formatted(list, nodeId);
  }

  /**
   * @param listeners one {@code name=port} per consumer backend service: Envoy listens on
   *     127.0.0.1:port and sends HTTP to that service's cluster
   */
  public static String envoy(List<String> servers, String nodeId, List<String> listeners) {
    // One cluster for every xDS server: should one go away, Envoy's stream reconnects to another.
    String endpoints = servers.stream().map(s -> {
      String[] hostPort = s.split(":");
      return "          - endpoint: {address: {socket_address: {address: %s, port_value: %s}}}"
          .formatted(hostPort[0], hostPort[1]);
    }).collect(Collectors.joining("\n"));
    StringBuilder listenerYaml = new StringBuilder();
    for (String l : listeners) {
      String[] namePort = l.split("=");
      listenerYaml.append("""
              - name: %s
                address: {socket_address: {address: 127.0.0.1, port_value: %s}}
                filter_chains:
                - filters:
                  - name: envoy.filters.network.http_connection_manager
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                      stat_prefix: %s
                      rds: {route_config_name: %s, config_source: {ads: {}, resource_api_version: V3}}
                      http_filters:
                      - name: envoy.filters.http.router
                        typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
          """.formatted(namePort[0], namePort[1], namePort[0], namePort[0]));
    }
    return """
        # Envoy bootstrap written by healthctl xds bootstrap --envoy
        node: {id: %s, cluster: healthmesh}
        dynamic_resources:
          ads_config:
            api_type: GRPC
            transport_api_version: V3
            grpc_services:
            - envoy_grpc: {cluster_name: healthmesh_xds}
          cds_config: {ads: {}, resource_api_version: V3}
        static_resources:
          listeners:
        %s  clusters:
          - name: healthmesh_xds
            type: STRICT_DNS
            typed_extension_protocol_options:
              envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
                "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
                explicit_http_config: {http2_protocol_options: {}}
            load_assignment:
              cluster_name: healthmesh_xds
              endpoints:
              - lb_endpoints:
        %s
        """.formatted(nodeId, listenerYaml.length() == 0 ? "    []\n" : listenerYaml, endpoints);
  }
}
