package io.healthmesh.streams.rules;

import io.healthmesh.config.GeoItem;
import io.healthmesh.config.GeoPolicy;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.net.IpAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** The health-checked targets of a record set, and how its external endpoints are checked. */
public final class DnsTargets {
  /** R-DNSHC-4: external endpoints are checked every 30 s unless the record set says otherwise. */
  public static final int DEFAULT_INTERVAL_SEC = 30;

  private DnsTargets() {}

  /** Every non-null {@code healthCheckedTargets} of the policy: items, primary set and backup items. */
  public static List<HealthCheckedTargets> targets(RoutingPolicy policy) {
    List<HealthCheckedTargets> targets = new ArrayList<>();
    if (policy == null) {
      return targets;
    }
    if (policy.getWrr() != null) {
      policy.getWrr().getItems().stream().map(WrrItem::getHealthCheckedTargets).forEach(targets::add);
    }
    geoTargets(policy.getGeo(), targets);
    if (policy.getPrimaryBackup() != null) {
      targets.add(policy.getPrimaryBackup().getPrimaryTargets());
      geoTargets(policy.getPrimaryBackup().getBackupGeoTargets(), targets);
    }
    targets.removeIf(t -> t == null);
    return targets;
  }

  /**
   * Every external endpoint a record set health checks, in a stable order, each address in its
   * canonical spelling (R-DNSHC-1): the name its probes, its state and its rrdatas are matched by.
   */
  public static List<String> externalEndpoints(ResourceRecordSet rrs) {
    TreeSet<String> found = new TreeSet<>();
    targets(rrs.getRoutingPolicy()).forEach(t -> t.getExternalEndpoints()
        .forEach(address -> found.add(IpAddress.canonicalOrSame(address))));
    return new ArrayList<>(found);
  }

  /** How the record set's external endpoints are checked. */
  public static HealthCheckSpec spec(RoutingPolicy policy) {
    if (policy != null && policy.getHealthCheck() != null) {
      return policy.getHealthCheck();
    }
    return HealthCheckSpec.newBuilder().setCheckIntervalSec(DEFAULT_INTERVAL_SEC).build();
  }

  private static void geoTargets(GeoPolicy geo, List<HealthCheckedTargets> targets) {
    if (geo != null) {
      geo.getItems().stream().map(GeoItem::getHealthCheckedTargets).forEach(targets::add);
    }
  }
}
