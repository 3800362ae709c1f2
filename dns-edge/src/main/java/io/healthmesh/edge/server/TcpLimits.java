package io.healthmesh.edge.server;

import java.time.Duration;

/**
 * How much of the TCP listener one client may hold (RFC 7766 section 6.2.3).
 *
 * @param maxConnections open connections at most; beyond it the oldest idle one is closed
 * @param maxPerClient open connections of one client address at most; more are closed at once
 * @param idleTimeout a connection waiting for its next query this long is closed
 * @param messageTimeout a query begun but not complete after this long (or an answer the client
 *     does not read) closes its connection, so a client sending a byte at a time holds nothing
 */
public record TcpLimits(int maxConnections, int maxPerClient, Duration idleTimeout, Duration messageTimeout) {
  public static TcpLimits defaults() {
    return new TcpLimits(256, 32, Duration.ofSeconds(10), Duration.ofSeconds(2));
  }
}
