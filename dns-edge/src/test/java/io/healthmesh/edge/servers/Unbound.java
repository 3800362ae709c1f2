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
          module-config: "subnetcache iterator"
          send-client-subnet: 127.0.0.1
          max-client-subnet-ipv4: 24
          root-hints: ""
          harden-referral-path: no
          qname-minimisation: no
          prefetch: no
        remote-control:
          control-enable: no
        %s
        """.formatted(port, dir, dir, dir, zones));
    return NameServerProcess.start(dir, port, probe, "unbound", "-d", "-c", dir.resolve("unbound.conf").toString());
  }
}
