package io.healthmesh.edge.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Queries by transport and response code, and listener failures (Prometheus: healthmesh_dns_...).
 * Counters are looked up once and kept: a registry lookup per query would cost more than the
 * answer.
 */
final class ServerMetrics {
  private static final String[] RCODES = {"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"};
  private final MeterRegistry registry;
  private final Map<String, Counter[]> queries = new ConcurrentHashMap<>();

  ServerMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  void query(String transport, byte[] reply) {
    Counter[] byRcode = queries.computeIfAbsent(transport, t -> new Counter[17]);
    int rcode = reply == null ? 16 : reply.length < 4 ? 15 : reply[3] & 0x0F;
    Counter c = byRcode[rcode];
    if (c == null) {
      String name = rcode == 16 ? "DROPPED" : rcode < RCODES.length ? RCODES[rcode] : "RCODE" + rcode;
      c = registry.counter("healthmesh.dns.queries", "transport", transport, "rcode", name);
      byRcode[rcode] = c;
    }
    c.increment();
  }

  void failure(String where) {
    registry.counter("healthmesh.dns.listener.failures", "where", where).increment();
  }
}
