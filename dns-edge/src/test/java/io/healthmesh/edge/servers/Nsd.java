package io.healthmesh.edge.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** NSD, the authoritative server, on a loopback port with the zones given (Debian package nsd). */
public final class Nsd {
  private Nsd() {}

  /** @param zones zone file text by zone name (no trailing dot) */
  public static NameServerProcess start(Path dir, Map<String, String> zones) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    int port = NameServerProcess.freePort();
    StringBuilder conf = new StringBuilder("""
        server:
          ip-address: 127.0.0.1
          port: %d
          do-ip6: no
          server-count: 1
          username: ""
          chroot: ""
          zonesdir: "%s"
          database: ""
          pidfile: "%s/nsd.pid"
          xfrdfile: "%s/xfrd.state"
          xfrdir: "%s"
          zonelistfile: "%s/zone.list"
          logfile: "%s/nsd.log"
          rrl-ratelimit: 0
          verbosity: 0
        remote-control:
          control-enable: no
        """.formatted(port, dir, dir, dir, dir, dir, dir));
    for (Map.Entry<String, String> zone : zones.entrySet()) {
      Files.writeString(dir.resolve(zone.getKey() + ".zone"), zone.getValue());
      conf.append("zone:\n  name: ").append(zone.getKey()).append("\n  zonefile: ").append(zone.getKey())
          .append(".zone\n");
    }
    Files.writeString(dir.resolve("nsd.conf"), conf);
    return NameServerProcess.start(dir, port, zones.keySet().iterator().next() + ".", "nsd", "-d", "-c",
        dir.resolve("nsd.conf").toString());
  }
}
