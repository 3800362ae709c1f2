package io.healthmesh.edge.routing;

import java.util.List;

/** How a record set answers, with the health of every address as of one snapshot. */
public sealed interface Plan {

  /** No routing policy: always the same records. */
  record Static(List<String> rrdatas) implements Plan {}

  /** Weighted round robin (R-WRR-*). */
  record Wrr(List<Bucket> items) implements Plan {}

  /** Geolocation, optionally fenced (R-GEO-*). */
  record Geo(List<Bucket> items, boolean fencing) implements Plan {}

  /** Primary with a geolocation backup and trickle traffic (R-FO-*). */
  record Failover(Bucket primary, Geo backup, double trickle) implements Plan {}
}
