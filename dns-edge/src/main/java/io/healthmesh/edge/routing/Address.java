package io.healthmesh.edge.routing;

import io.healthmesh.events.HealthStatus;

/**
 * One rrdata a bucket can return. {@code checked} when a health-checked target of the bucket has
 * this address; its status is then the target's, where a missing entry is UNKNOWN.
 */
public record Address(String rrdata, boolean checked, HealthStatus status) {

  public static Address unchecked(String rrdata) {
    return new Address(rrdata, false, HealthStatus.UNKNOWN);
  }

  /** UNKNOWN counts as healthy: routing fails open rather than dropping a target it cannot judge. */
  public boolean healthy() {
    return !checked || status != HealthStatus.UNHEALTHY;
  }

  /** Healthy only because nothing is known about it. */
  public boolean unknown() {
    return checked && status == HealthStatus.UNKNOWN;
  }
}
