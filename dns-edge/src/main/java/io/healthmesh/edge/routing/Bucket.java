package io.healthmesh.edge.routing;

import java.util.List;

/**
 * One policy item: a WRR item, a geolocation item or a primary set, with its addresses.
 *
 * @param label how decisions name it: {@code wrr[1]}, {@code geo[us-east1]}, {@code primary}
 * @param weight WRR weight, 0 for the other kinds
 * @param location region of a geolocation item, empty otherwise
 */
public record Bucket(String label, int weight, String location, List<Address> addresses) {

  public Bucket {
    addresses = List.copyOf(addresses);
  }

  /** R-WRR-5: it has health-checked addresses and all of them are UNHEALTHY. */
  public boolean checkedAllUnhealthy() {
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

  /** R-GEO-3: every address is health checked and every one is UNHEALTHY. */
  public boolean dead() {
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

  /** R-DNS-4, R-GEO-4, R-GEO-6: what the bucket returns: unchecked addresses and healthy checked ones. */
  public List<Address> healthyAddresses() {
    return addresses.stream().filter(Address::healthy).toList();
  }
}
