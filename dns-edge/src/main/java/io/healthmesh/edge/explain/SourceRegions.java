package io.healthmesh.edge.explain;

import io.healthmesh.edge.routing.SubnetRegions;
import io.healthmesh.net.Cidr;
import java.util.function.Consumer;

/** The source region an edge takes for a client subnet (R-GEO-1), from the edges' own mapping. */
public final class SourceRegions {
  private final SubnetRegions regions;

  private SourceRegions(SubnetRegions regions) {
    this.regions = regions;
  }

  /**
   * @param text the edges' {@code dns.client.subnet.regions}
   * @param problems told what is wrong with it
   */
  public static SourceRegions parse(String text, Consumer<String> problems) {
    return new SourceRegions(SubnetRegions.parse(text, problems));
  }

  /** The region the subnet maps to, source prefix length included; null when none (the edge's own then). */
  public String regionOf(Cidr subnet) {
    return regions.regionOf(subnet.network(), subnet.prefix());
  }
}
