package io.healthmesh.edge.server;

import io.micrometer.core.instrument.MeterRegistry;

/** Queries by transport and response code, and listener failures (Prometheus: healthmesh_dns_...). */
final class ServerMetrics {
  private static final String[] RCODES = {"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"};
  private final MeterRegistry registry;

  ServerMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  void query(String transport, byte[] reply) {
    String rcode = reply == null ? "DROPPED" : rcode(reply);
    registry.counter("healthmesh.dns.queries", "transport", transport, "rcode", rcode).increment();
  }

  void failure(String where) {
    registry.counter("healthmesh.dns.listener.failures", "where", where).increment();
  }

  private static String rcode(byte[] reply) {
    int rcode = reply.length < 4 ? -1 : reply[3] & 0x0F;
    return rcode >= 0 && rcode < RCODES.length ? RCODES[rcode] : "RCODE" + rcode;
  }
}
