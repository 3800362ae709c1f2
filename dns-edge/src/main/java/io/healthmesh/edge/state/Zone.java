package io.healthmesh.edge.state;

import io.healthmesh.config.ManagedZone;
import io.healthmesh.edge.collect.ShardedMap;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.Name;
import org.xbill.DNS.SOARecord;

/**
 * One served zone: its record sets by owner name and type, already planned against the health
 * of the snapshot it belongs to, and every name that exists in it (owners, the apex and the
 * empty non-terminals between them), so telling NXDOMAIN from NODATA is one lookup. A zone
 * whose content did not change between two snapshots is the same object in both; its SOA
 * serial is the version of the snapshot that last changed it.
 *
 * @param recordSets how many record sets it serves
 */
public record Zone(ManagedZone config, Name origin, ZoneAccess access, SOARecord soa,
    ShardedMap<Name, Map<Integer, RecordSetEntry>> names, ShardedMap<Name, Boolean> existing, int recordSets) {

  public boolean allows(InetAddress client) {
    return access.allows(client);
  }

  /** A forwarding zone's target name servers (R-SP-1); empty for a zone that answers itself. */
  public List<InetSocketAddress> forwarding() {
    return access.forwarding();
  }

  /** The record sets of {@code name} by type, or null when it owns none. */
  public Map<Integer, RecordSetEntry> types(Name name) {
    return names.get(name);
  }

  /** The apex and empty non-terminals exist without records of their own (NODATA, not NXDOMAIN). */
  public boolean exists(Name name) {
    return existing.containsKey(name);
  }
}
