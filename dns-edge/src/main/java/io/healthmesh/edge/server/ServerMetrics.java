package io.healthmesh.edge.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;

/**
 * Queries by transport, query type and response code, their latency, and listener failures
 * (Prometheus: healthmesh_dns_...). Meters are looked up once and kept in arrays: a registry lookup
 * per query would cost more than the answer.
 */
final class ServerMetrics {
  private static final String[] RCODES = {"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"};
  /** Query types with their own label; every other type counts as OTHER. */
  private static final int[] TYPES = {1, 28, 5, 15, 33, 16, 6, 2, 12, 255};
  private static final String[] TYPE_NAMES = {"A", "AAAA", "CNAME", "MX", "SRV", "TXT", "SOA", "NS", "PTR", "ANY", "OTHER"};
  private static final int DROPPED = 16;
  /** BADVERS (16) is an extended rcode: its low bits in the header read NOERROR. */
  private static final int BADVERS = 17;
  private static final int MALFORMED = 15;
  private final MeterRegistry registry;
  // Registered at once, so that a dashboard or alert reads 0 before the first failure, not nothing.
  private final Counter udpFailures;
  private final Counter tcpFailures;

  ServerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.udpFailures = failures(registry, "udp");
    this.tcpFailures = failures(registry, "tcp");
  }

  private static Counter failures(MeterRegistry registry, String where) {
    return Counter.builder("healthmesh.dns.listener.failures").tag("where", where)
        .description("Datagrams or connections a listener could not handle (receive, send or answer failed)")
        .register(registry);
  }

  /** The meters of one transport, resolved once so that a query costs no map lookup. */
  Transport transport(String name) {
    return new Transport(name, Timer.builder("healthmesh.dns.query.duration")
        .description("Time from a query's arrival to its answer being ready to send (batched UDP: sent)")
        .tag("transport", name)
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(1_000))
        .maximumExpectedValue(Duration.ofMillis(100)).register(registry));
  }

  /** Queries of one transport by type and response code, and their latency. */
  final class Transport {
    private final String name;
    private final Timer latency;
    private final Counter[][] byType = new Counter[TYPE_NAMES.length][18];

    private Transport(String name, Timer latency) {
      this.name = name;
      this.latency = latency;
    }

    /** @param started {@link System#nanoTime()} when the query arrived */
    void query(byte[] query, byte[] reply, long started) {
      latency(System.nanoTime() - started);
      count(query, reply);
    }

    void latency(long nanos) {
      latency.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Counts a query by type and response code; its latency is recorded apart. */
    void count(byte[] query, byte[] reply) {
      int rcode = reply == null ? DROPPED : reply.length < 12 ? MALFORMED : reply[3] & 0x0F;
      if (rcode == Rcode.NOERROR && isBadVers(reply)) {
        rcode = BADVERS;
      }
      int type = typeIndex(query);
      Counter c = byType[type][rcode];
      if (c == null) {
        String rcodeName = rcode == DROPPED ? "DROPPED" : rcode == BADVERS ? "BADVERS"
            : rcode < RCODES.length ? RCODES[rcode] : "RCODE" + rcode;
        // a race here only looks the same counter up twice
        c = registry.counter("healthmesh.dns.queries", "transport", name, "type", TYPE_NAMES[type], "rcode", rcodeName);
        byType[type][rcode] = c;
      }
      c.increment();
    }
  }

  /**
   * Whether a reply whose header says NOERROR is a BADVERS, whose upper rcode bits are in its OPT.
   * Only a reply with no answer, no authority and one additional record can be: any other
   * answer costs four byte reads here.
   */
  private static boolean isBadVers(byte[] reply) {
    if ((reply[6] | reply[7] | reply[8] | reply[9] | reply[10]) != 0 || reply[11] != 1) {
      return false;
    }
    try {
      return new Message(reply).getRcode() == Rcode.BADVERS;
    } catch (IOException e) {
      return false;
    }
  }

  /** The question's type, found by skipping the header and the name's labels; OTHER when unreadable. */
  static int typeIndex(byte[] query) {
    int i = 12;
    while (i < query.length) {
      int len = query[i] & 0xFF;
      if (len == 0) {
        break;
      }
      if ((len & 0xC0) != 0) {
        return TYPES.length; // compression in a question: unusual, not worth following
      }
      i += len + 1;
    }
    if (i + 2 >= query.length) {
      return TYPES.length;
    }
    int type = (query[i + 1] & 0xFF) << 8 | query[i + 2] & 0xFF;
    for (int t = 0; t < TYPES.length; t++) {
      if (TYPES[t] == type) {
        return t;
      }
    }
    return TYPES.length;
  }

  /** A TCP connection the listener closed to keep it available to everyone (RFC 7766 6.2.3). */
  void tcpClosed(String reason) {
    registry.counter("healthmesh.dns.tcp.closed", "reason", reason).increment();
  }

  void udpFailure() {
    udpFailures.increment();
  }

  void tcpFailure() {
    tcpFailures.increment();
  }
}
