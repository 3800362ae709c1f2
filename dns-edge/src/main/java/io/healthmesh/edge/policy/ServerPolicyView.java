package io.healthmesh.edge.policy;

import io.healthmesh.config.ServerPolicy;
import io.healthmesh.config.TargetNameServer;
import io.healthmesh.net.IpAddress;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * A server policy as the edge serves it (R-SP-1): its networks parsed, and its alternative name
 * servers as socket addresses (empty when names outside the zones are REFUSED).
 */
public record ServerPolicyView(String name, Networks networks, Networks inbound, boolean logging, double sampleRate,
    List<InetSocketAddress> alternatives) {

  public static ServerPolicyView of(ServerPolicy p) {
    return new ServerPolicyView(p.getName(), Networks.parse(p.getNetworks()),
        p.getEnableInboundForwarding() ? Networks.parse(p.getInboundNetworks()) : Networks.NONE, p.getEnableLogging(),
        p.getLoggingSampleRate(), p.getAlternativeNameServerConfig() == null ? List.of()
            : targets(p.getAlternativeNameServerConfig().getTargetNameServers()));
  }

  /** The targets' addresses, literal only: parsing never resolves a name. */
  public static List<InetSocketAddress> targets(List<TargetNameServer> targets) {
    List<InetSocketAddress> addresses = new ArrayList<>();
    for (TargetNameServer t : targets) {
      String text = t.getIpv4Address().isEmpty() ? t.getIpv6Address() : t.getIpv4Address();
      byte[] bytes = IpAddress.parse(text);
      if (bytes == null) {
        continue; // checked by PolicyRules before the policy was taken
      }
      try {
        addresses.add(new InetSocketAddress(InetAddress.getByAddress(bytes), t.getPort()));
      } catch (UnknownHostException e) {
        throw new IllegalStateException("an address of 4 or 16 bytes is always valid", e);
      }
    }
    return List.copyOf(addresses);
  }
}
