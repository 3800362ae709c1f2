package io.healthmesh.xds;

import io.envoyproxy.envoy.config.core.v3.Node;
import java.util.Map;
import java.util.TreeMap;

/** One xDS stream as the server saw it: who, what was sent per type, what was acknowledged. */
final class ClientStream {
  private final long id;
  private final long openedAtMillis;
  private volatile String node = "";
  private volatile String userAgent = "";
  private volatile boolean delta;
  private final Map<String, TypeState> types = new TreeMap<>();

  ClientStream(long id, long openedAtMillis) {
    this.id = id;
    this.openedAtMillis = openedAtMillis;
  }

  void node(Node n) {
    if (n != null && node.isEmpty()) {
      node = StreamTracker.nodeName(n);
      userAgent = (n.getUserAgentName() + " " + n.getUserAgentVersion()).trim();
    }
  }

  void delta() {
    delta = true;
  }

  synchronized void sent(String typeUrl, String nonce, String version, int resources) {
    TypeState t = type(typeUrl);
    t.sentNonce = nonce;
    t.sentVersion = version;
    t.sentResources = resources;
    t.sentAtMillis = System.currentTimeMillis();
    t.pending = true;
  }

  synchronized void acked(String typeUrl, String nonce, String version) {
    TypeState t = type(typeUrl);
    if (nonce.equals(t.sentNonce)) {
      t.pending = false;
      t.ackedVersion = version == null ? t.sentVersion : version;
    }
  }

  synchronized void nacked(String typeUrl, String nonce, String message) {
    TypeState t = type(typeUrl);
    t.nacks++;
    t.lastError = message;
    if (nonce.equals(t.sentNonce)) {
      t.pending = false;
    }
  }

  private TypeState type(String typeUrl) {
    return types.computeIfAbsent(StreamTracker.shortType(typeUrl), k -> new TypeState());
  }

  synchronized View view() {
    Map<String, TypeView> out = new TreeMap<>();
    types.forEach((k, t) -> out.put(k, new TypeView(t.sentVersion, t.sentResources, t.sentAtMillis, t.ackedVersion,
        t.pending, t.nacks, t.lastError)));
    return new View(id, node, userAgent, delta, openedAtMillis, out);
  }

  private static final class TypeState {
    String sentNonce = "";
    String sentVersion = "";
    int sentResources;
    long sentAtMillis;
    String ackedVersion = "";
    boolean pending;
    long nacks;
    String lastError = "";
  }

  /** What {@code healthctl status} shows of a stream. */
  record View(long stream, String node, String userAgent, boolean delta, long openedAtMillis,
      Map<String, TypeView> types) {}

  /**
   * Per resource type: the version last sent and how many resources it held, the version the
   * client last acknowledged, whether an answer to the last send is still awaited, NACKs so far.
   */
  record TypeView(String sentVersion, int sentResources, long sentAtMillis, String ackedVersion, boolean awaiting,
      long nacks, String lastError) {}
}
