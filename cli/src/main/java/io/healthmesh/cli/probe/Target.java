package io.healthmesh.cli.probe;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.Endpoint;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.streams.rules.DnsTargets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One endpoint to check and how.
 *
 * @param backendService the endpoint's backend service, or null for an external endpoint
 * @param endpointId the endpoint id, or the address of an external endpoint
 */
public record Target(String backendService, String endpointId, String address, int port, HealthCheckSpec spec) {

  /** The probe-results key: the backend service, or the external endpoint's address. */
  public String key() {
    return backendService != null ? backendService : endpointId;
  }

  /**
   * When in each interval this prober checks this target, in milliseconds from the schedule's
   * start: stable across restarts (no storm when a prober starts), different for each prober of a
   * fleet (probers do not check an endpoint at the same moment), and evenly spread over the interval
   * even for a service's endpoints, whose names differ in a character (String's hash alone put a
   * hundred of them within 100 ms).
   */
  public long phaseMillis(String prober, long intervalMillis) {
    long h = (((long) prober.hashCode() * 31 + key().hashCode()) << 32) ^ endpointId.hashCode() ^ port;
    // MurmurHash3's 64-bit finalizer: every input bit moves every output bit
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return Math.floorMod(h, intervalMillis);
  }

  /** Every endpoint of every backend service, then every external endpoint of the record sets. */
  public static List<Target> all(Iterable<BackendService> services, Iterable<ResourceRecordSet> recordSets) {
    List<Target> targets = new ArrayList<>();
    for (BackendService s : services) {
      HealthCheckSpec spec = s.getHealthCheck();
      for (Endpoint e : s.getEndpoints()) {
        targets.add(new Target(s.getName(), e.getId(), e.getIpAddress(),
            e.getPort() != null ? e.getPort() : spec.getPort(), spec));
      }
    }
    // an address checked by several record sets is checked once, as the first one says
    Map<String, Target> external = new LinkedHashMap<>();
    for (ResourceRecordSet rrs : recordSets) {
      HealthCheckSpec spec = DnsTargets.spec(rrs.getRoutingPolicy());
      for (String address : DnsTargets.externalEndpoints(rrs)) {
        external.putIfAbsent(address, new Target(null, address, address, spec.getPort(), spec));
      }
    }
    targets.addAll(external.values());
    return targets;
  }
}
