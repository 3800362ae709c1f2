package io.healthmesh.edge.routing;

import java.util.ArrayList;
import java.util.List;

/**
 * One policy item: a WRR item, a geolocation item or a primary set, with its addresses. What the
 * engine asks of it is worked out once, when the snapshot is built, not per query.
 *
 * @param label how decisions name it: {@code wrr[1]}, {@code geo[us-east1]}, {@code primary}
 * @param weight WRR weight, 0 for the other kinds
 * @param location region of a geolocation item, empty otherwise
 * @param healthy R-DNS-4, R-GEO-4, R-GEO-6: what the bucket returns: unchecked and healthy checked rrdatas
 * @param checkedAllUnhealthy R-WRR-5: it has health-checked addresses and all of them are UNHEALTHY
 * @param dead R-GEO-3: every address is health checked and every one is UNHEALTHY
 */
public record Bucket(String label, int weight, String location, List<Address> addresses, List<String> healthy,
    List<String> all, boolean checkedAllUnhealthy, boolean dead) {

  public Bucket(String label, int weight, String location, List<Address> addresses) {
    this(label, weight, location, List.copyOf(addresses), rrdatas(addresses, true), rrdatas(addresses, false),
        checkedAllUnhealthy(addresses), dead(addresses));
  }

  private static List<String> rrdatas(List<Address> addresses, boolean healthyOnly) {
    List<String> out = new ArrayList<>();
    for (Address a : addresses) {
      if (!healthyOnly || a.healthy()) {
        out.add(a.rrdata());
      }
    }
    return List.copyOf(out);
  }

  private static boolean checkedAllUnhealthy(List<Address> addresses) {
    boolean anyChecked = false;
    for (Address a : addresses) {
      if (a.checked()) {
        anyChecked = true;
        if (a.healthy()) {
          return false;
        }
      }
    }
    return anyChecked;
  }

  private static boolean dead(List<Address> addresses) {
    if (addresses.isEmpty()) {
      return false;
    }
    for (Address a : addresses) {
      if (!a.checked() || a.healthy()) {
        return false;
      }
    }
    return true;
  }
}
