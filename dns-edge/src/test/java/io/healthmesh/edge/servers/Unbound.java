package io.healthmesh.edge.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * unbound, the recursive resolver, on a loopback port (Debian package unbound): no root hints are
 * ever used, only the stub and forward zones given, so it sends nothing off loopback.
 */
public final class Unbound {
  private Unbound() {}

  /**
   * @param zones unbound clauses ({@code stub-zone:} ...) that say where each name is asked
   * @param probe a name it can answer, to know it is up
   */
  public static NameServerProcess start(Path dir, String zones, String probe) throws IOException, InterruptedException {
    return start(dir, "subnetcache iterator", "", zones, probe);
  }

  /**
   * A validating resolver (R-DNSSEC-1): {@code anchors} are {@code trust-anchor:} lines, the only
   * keys it trusts, and every TTL is capped at {@code maxTtl} seconds so a test sees changes soon.
   */
  public static NameServerProcess validating(Path dir, String anchors, int maxTtl, String zones)
      throws IOException, InterruptedException {
    // It is up when it answers its own local zone: a test's zone may be bogus on purpose.
    return start(dir, "subnetcache validator iterator", anchors + "\n  cache-max-ttl: " + maxTtl
        + "\n  cache-max-negative-ttl: " + maxTtl + "\n  val-log-level: 2\n  key-cache-size: 1m"
        + "\n  local-zone: \"probe.test.\" static"
        + "\n  local-data: \"probe.test. 60 IN SOA probe.test. hostmaster.probe.test. 1 60 60 60 60\"", zones,
        "probe.test.");
  }

  private static NameServerProcess start(Path dir, String modules, String more, String zones, String probe)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    int port = NameServerProcess.freePort();
    Files.writeString(dir.resolve("unbound.conf"), """
        server:
          interface: 127.0.0.1
          port: %d
          do-ip6: no
          username: ""
          chroot: ""
          directory: "%s"
          pidfile: "%s/unbound.pid"
          use-syslog: no
          logfile: "%s/unbound.log"
          verbosity: 1
          num-threads: 1
          access-control: 127.0.0.0/8 allow
          do-not-query-localhost: no
          module-config: "%s"
          send-client-subnet: 127.0.0.1
          max-client-subnet-ipv4: 24
          root-hints: ""
          harden-referral-path: no
          qname-minimisation: no
          prefetch: no
          %s
        remote-control:
          control-enable: no
        %s
        """.formatted(port, dir, dir, dir, modules, more, zones));
    return NameServerProcess.start(dir, port, probe, "unbound", "-d", "-c", dir.resolve("unbound.conf").toString());
  }
}
