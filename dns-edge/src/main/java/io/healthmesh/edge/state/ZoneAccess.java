package io.healthmesh.edge.state;

import io.healthmesh.config.ZoneVisibility;
import io.healthmesh.edge.policy.Networks;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Who may query a zone, and where a forwarding zone sends them. Kept apart from {@link Zone} so
 * that the fast path's index can point at it without holding on to every older version of the
 * zone's names.
 *
 * @param forwarding a forwarding zone's target name servers (R-SP-1); empty for any other zone
 */
public record ZoneAccess(ZoneVisibility visibility, Networks networks, List<InetSocketAddress> forwarding) {

  public ZoneAccess {
    forwarding = List.copyOf(forwarding);
  }

  /**
   * R-SP-1: a client admitted by inbound forwarding stands for its server policy's networks, so a
   * private zone answers it when one of the zone's networks overlaps one of those.
   */
  public boolean allows(Networks standsFor) {
    return visibility == ZoneVisibility.PUBLIC || networks.match(standsFor) >= 0;
  }

  /** Private zones answer only clients in their networks. */
  public boolean allows(InetAddress client) {
    return visibility == ZoneVisibility.PUBLIC || networks.contains(client.getAddress());
  }
}
