package io.healthmesh.xds;

import io.envoyproxy.controlplane.cache.Resources;
import io.envoyproxy.controlplane.server.DiscoveryServerCallbacks;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches every xDS stream: what each client was last sent per type, whether it acknowledged it,
 * and the NACKs it sent back with their reasons; counts requests for resources that do not exist.
 */
final class StreamTracker implements DiscoveryServerCallbacks {
  private static final Logger LOG = LoggerFactory.getLogger(StreamTracker.class);

  private final Map<Long, ClientStream> streams = new ConcurrentHashMap<>();
  private final MeterRegistry meters;
  private final Supplier<XdsSnapshot> snapshot;

  StreamTracker(MeterRegistry meters, Supplier<XdsSnapshot> snapshot) {
    this.meters = meters;
    this.snapshot = snapshot;
    meters.gauge("healthmesh.xds.streams", streams, Map::size);
    // Every type's counters exist from the start, so dashboards and alerts read 0 rather than nothing.
    for (String type : List.of("Listener", "RouteConfiguration", "Cluster", "ClusterLoadAssignment")) {
      for (String name : List.of("healthmesh.xds.requests", "healthmesh.xds.acks", "healthmesh.xds.nacks",
          "healthmesh.xds.responses", "healthmesh.xds.resources.sent", "healthmesh.xds.unknown.resources")) {
        Counter.builder(name).tag("type", type).register(meters);
      }
      Counter.builder("healthmesh.xds.response.bytes").tag("type", type).baseUnit("bytes").register(meters);
    }
  }

  @Override
  public void onStreamOpen(long streamId, String typeUrl) {
    streams.put(streamId, new ClientStream(streamId, System.currentTimeMillis()));
  }

  @Override
  public void onStreamClose(long streamId, String typeUrl) {
    streams.remove(streamId);
  }

  @Override
  public void onStreamCloseWithError(long streamId, String typeUrl, Throwable error) {
    streams.remove(streamId);
  }

  @Override
  public void onV3StreamRequest(long streamId, DiscoveryRequest request) {
    ClientStream stream = stream(streamId);
    stream.node(request.hasNode() ? request.getNode() : null);
    if (request.hasErrorDetail()) {
      nack(stream, request.getTypeUrl(), request.getResponseNonce(), request.getErrorDetail().getMessage());
    } else if (!request.getResponseNonce().isEmpty()) {
      stream.acked(request.getTypeUrl(), request.getResponseNonce(), request.getVersionInfo());
      count("healthmesh.xds.acks", request.getTypeUrl());
    }
    count("healthmesh.xds.requests", request.getTypeUrl());
    unknown(request.getTypeUrl(), request.getResourceNamesList());
  }

  @Override
  public void onV3StreamDeltaRequest(long streamId, DeltaDiscoveryRequest request) {
    ClientStream stream = stream(streamId);
    stream.node(request.hasNode() ? request.getNode() : null);
    stream.delta();
    if (request.hasErrorDetail()) {
      nack(stream, request.getTypeUrl(), request.getResponseNonce(), request.getErrorDetail().getMessage());
    } else if (!request.getResponseNonce().isEmpty()) {
      stream.acked(request.getTypeUrl(), request.getResponseNonce(), null);
      count("healthmesh.xds.acks", request.getTypeUrl());
    }
    count("healthmesh.xds.requests", request.getTypeUrl());
    unknown(request.getTypeUrl(), request.getResourceNamesSubscribeList());
  }

  @Override
  public void onV3StreamResponse(long streamId, DiscoveryRequest request, DiscoveryResponse response) {
    stream(streamId).sent(response.getTypeUrl(), response.getNonce(), response.getVersionInfo(),
        response.getResourcesCount());
    sent(response.getTypeUrl(), response.getResourcesCount(), response.getSerializedSize());
  }

  @Override
  public void onV3StreamDeltaResponse(long streamId, DeltaDiscoveryRequest request, DeltaDiscoveryResponse response) {
    stream(streamId).sent(response.getTypeUrl(), response.getNonce(),
        response.getSystemVersionInfo(), response.getResourcesCount() + response.getRemovedResourcesCount());
    sent(response.getTypeUrl(), response.getResourcesCount(), response.getSerializedSize());
  }

  /** Every open stream, oldest first. */
  List<ClientStream.View> clients() {
    List<ClientStream.View> out = new ArrayList<>();
    streams.values().forEach(s -> out.add(s.view()));
    out.sort(Comparator.comparingLong(ClientStream.View::openedAtMillis));
    return out;
  }

  private ClientStream stream(long id) {
    return streams.computeIfAbsent(id, k -> new ClientStream(k, System.currentTimeMillis()));
  }

  private void nack(ClientStream stream, String typeUrl, String nonce, String message) {
    stream.nacked(typeUrl, nonce, message);
    count("healthmesh.xds.nacks", typeUrl);
    LOG.warn("xDS client {} rejected {} (nonce {}): {}", stream.view().node(), shortType(typeUrl), nonce, message);
  }

  /** Names a client asks for that no consumer backend service has; it waits for them and is counted. */
  private void unknown(String typeUrl, List<String> names) {
    if (names.isEmpty()) {
      return;
    }
    XdsSnapshot current = snapshot.get();
    var type = Resources.TYPE_URLS_TO_RESOURCE_TYPE.get(typeUrl);
    if (type == null) {
      return;
    }
    Map<String, ?> known = current.resources(type);
    long missing = names.stream().filter(n -> !n.equals("*") && !known.containsKey(n)).count();
    if (missing > 0) {
      Counter.builder("healthmesh.xds.unknown.resources").tag("type", shortType(typeUrl))
          .description("resource names clients asked for that no consumer backend service has").register(meters)
          .increment(missing);
    }
  }

  private void count(String name, String typeUrl) {
    Counter.builder(name).tag("type", shortType(typeUrl)).register(meters).increment();
  }

  private void sent(String typeUrl, int resources, int bytes) {
    String type = shortType(typeUrl);
    Counter.builder("healthmesh.xds.responses").tag("type", type).register(meters).increment();
    Counter.builder("healthmesh.xds.resources.sent").tag("type", type).register(meters).increment(resources);
    Counter.builder("healthmesh.xds.response.bytes").tag("type", type).baseUnit("bytes").register(meters)
        .increment(bytes);
  }

  static String shortType(String typeUrl) {
    return typeUrl.substring(typeUrl.lastIndexOf('.') + 1);
  }

  static String nodeName(Node node) {
    return node.getId().isEmpty() ? node.getUserAgentName() : node.getId();
  }
}
