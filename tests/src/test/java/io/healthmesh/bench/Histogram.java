package io.healthmesh.bench;

import java.util.Map;
import java.util.TreeMap;

/** A Prometheus histogram's change between two scrapes: cumulative bucket counts by upper bound. */
record Histogram(TreeMap<Double, Double> buckets, double sum, long count) {

  static Histogram between(String before, String after, String name, String label) {
    Histogram a = parse(before, name, label);
    Histogram b = parse(after, name, label);
    TreeMap<Double, Double> buckets = new TreeMap<>();
    b.buckets.forEach((le, c) -> buckets.put(le, c - a.buckets.getOrDefault(le, 0.0)));
    return new Histogram(buckets, b.sum - a.sum, b.count - a.count);
  }

  private static Histogram parse(String text, String name, String label) {
    TreeMap<Double, Double> buckets = new TreeMap<>();
    double sum = 0;
    long count = 0;
    for (String line : text.split("\n")) {
      if (!line.contains(label)) {
        continue;
      }
      double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      if (line.startsWith(name + "_bucket{")) {
        String le = line.replaceAll(".*le=\"([^\"]+)\".*", "$1");
        buckets.put(le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le), value);
      } else if (line.startsWith(name + "_sum{")) {
        sum = value;
      } else if (line.startsWith(name + "_count{")) {
        count = (long) value;
      }
    }
    return new Histogram(buckets, sum, count);
  }

  double mean() {
    return count == 0 ? 0 : sum / count;
  }

  /** The upper bound of the bucket that holds quantile {@code q}. */
  double quantile(double q) {
    for (Map.Entry<Double, Double> e : buckets.entrySet()) {
      if (e.getValue() >= q * count) {
        return e.getKey();
      }
    }
    return Double.NaN;
  }
}
