package io.healthmesh.edge.routing;

import io.healthmesh.net.Cidr;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * R-GEO-1: which region a query's EDNS Client Subnet maps to ({@code dns.client.subnet.regions}).
 * The edge and {@code audit explain} both ask this, so that they agree.
 */
public final class SubnetRegions {
  public static final SubnetRegions NONE = new SubnetRegions(List.of());

  /** One {@code CIDR=region} entry. */
  public record Entry(Cidr subnet, String region) {}

  private final List<Entry> entries;

  public SubnetRegions(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  /** Reads {@code CIDR=region,...}; each bad entry is reported to {@code problems} and left out. */
  public static SubnetRegions parse(String text, Consumer<String> problems) {
    List<Entry> entries = new ArrayList<>();
    for (String entry : text.split(",")) {
      if (entry.isBlank()) {
        continue;
      }
      String[] parts = entry.trim().split("=");
      try {
        if (parts.length != 2 || parts[1].isBlank()) {
          throw new IllegalArgumentException("not CIDR=region");
        }
        entries.add(new Entry(Cidr.parse(parts[0].trim()), parts[1].trim()));
      } catch (IllegalArgumentException e) {
        problems.accept("'" + entry.trim() + "' is not CIDR=region (R-GEO-1)");
      }
    }
    return new SubnetRegions(entries);
  }

  /**
   * The region of the first entry holding the client subnet, or null. A subnet is held only when
   * its source prefix is at least the entry's: a /8 from the client says nothing about which /16
   * inside it the client is in.
   */
  public String regionOf(byte[] address, int sourcePrefix) {
    for (Entry e : entries) {
      if (e.subnet().contains(address, sourcePrefix)) {
        return e.region();
      }
    }
    return null;
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }
}
