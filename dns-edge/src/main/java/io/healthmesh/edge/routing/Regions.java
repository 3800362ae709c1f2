package io.healthmesh.edge.routing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Region coordinates and the distances between them, for nearest-region fallback (R-GEO-2). */
public final class Regions {
  private static final double EARTH_RADIUS_KM = 6371.0;
  private final Map<String, double[]> coordinates;

  public Regions(Map<String, double[]> coordinates) {
    this.coordinates = Map.copyOf(coordinates);
  }

  /** The table shipped with the edge ({@code regions.csv}). */
  public static Regions builtIn() {
    try (InputStream in = Regions.class.getResourceAsStream("/io/healthmesh/edge/regions.csv")) {
      return parse(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads {@code region,latitude,longitude} lines; {@code #} starts a comment.
   *
   * @throws IllegalArgumentException naming every bad line
   */
  public static Regions parse(InputStream in) throws IOException {
    Map<String, double[]> coordinates = new HashMap<>();
    List<String> problems = new ArrayList<>();
    BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    String line;
    int number = 0;
    while ((line = reader.readLine()) != null) {
      number++;
      String text = line.replaceFirst("#.*", "").trim();
      if (text.isEmpty()) {
        continue;
      }
      String[] parts = text.split(",");
      try {
        double lat = Double.parseDouble(parts[1].trim());
        double lon = Double.parseDouble(parts[2].trim());
        if (parts.length != 3 || Math.abs(lat) > 90 || Math.abs(lon) > 180) {
          throw new NumberFormatException("out of range");
        }
        coordinates.put(parts[0].trim(), new double[] {lat, lon});
      } catch (RuntimeException e) {
        problems.add("line " + number + ": '" + line + "' is not region,latitude,longitude");
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("invalid region table: " + String.join("; ", problems));
    }
    return new Regions(coordinates);
  }

  /** Great-circle distance in km; 0 for the same region, infinite when either is unknown. */
  public double distance(String from, String to) {
    if (from.equals(to)) {
      return 0;
    }
    double[] a = coordinates.get(from);
    double[] b = coordinates.get(to);
    if (a == null || b == null) {
      return Double.POSITIVE_INFINITY;
    }
    double dLat = Math.toRadians(b[0] - a[0]);
    double dLon = Math.toRadians(b[1] - a[1]);
    double h = Math.pow(Math.sin(dLat / 2), 2)
        + Math.cos(Math.toRadians(a[0])) * Math.cos(Math.toRadians(b[0])) * Math.pow(Math.sin(dLon / 2), 2);
    return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(h));
  }
}
