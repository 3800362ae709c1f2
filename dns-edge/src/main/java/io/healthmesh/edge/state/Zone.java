package io.healthmesh.edge.state;

import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ZoneVisibility;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.xbill.DNS.Name;
import org.xbill.DNS.SOARecord;

/**
 * One served zone: its record sets by owner name and type, already planned against the health
 * of the snapshot it belongs to, and every name that exists in it (owners, the apex and the
 * empty non-terminals between them), so telling NXDOMAIN from NODATA is one lookup.
 */
public record Zone(ManagedZone config, Name origin, List<Cidr> networks, SOARecord soa,
    Map<Name, Map<Integer, RecordSetEntry>> names, Set<Name> existing) {

  /** Private zones answer only clients in their networks. */
  public boolean allows(InetAddress client) {
    if (config.getVisibility() == ZoneVisibility.PUBLIC) {
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
