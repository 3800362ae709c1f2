package io.healthmesh.edge.state;

import io.healthmesh.config.ZoneVisibility;
import io.healthmesh.net.Cidr;
import java.net.InetAddress;
import java.util.List;

/**
 * Who may query a zone. Kept apart from {@link Zone} so that the fast path's index can point at
 * it without holding on to every older version of the zone's names.
 */
public record ZoneAccess(ZoneVisibility visibility, List<Cidr> networks) {

  public ZoneAccess {
    networks = List.copyOf(networks);
  }

  /** Private zones answer only clients in their networks. */
  public boolean allows(InetAddress client) {
    if (visibility == ZoneVisibility.PUBLIC) {
      return true;
    }
    for (Cidr network : networks) {
      if (network.contains(client)) {
        return true;
      }
    }
    return false;
  }
}
