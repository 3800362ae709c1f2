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
 * @param all what it returns when failing open (R-WRR-8, R-FO-5, R-GEO-5)
 */
public record Bucket(String label, int weight, String location, List<Address> addresses, List<String> healthy,
    List<String> all) {

  public Bucket(String label, int weight, String location, List<Address> addresses) {
    this(label, weight, location, List.copyOf(addresses), rrdatas(addresses, true), rrdatas(addresses, false));
  }

  /**
   * The one eligibility rule of every policy (R-DNS-4; R-WRR-5, R-FO-2, R-GEO-3 are its cases):
   * an item is eligible while it has an address to answer with. An address without a health
   * check is always healthy, so an item mixing checked and unchecked addresses stays eligible
   * when its checked ones fail, and answers with the unchecked ones.
   */
  public boolean eligible() {
    return !healthy.isEmpty();
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
}
