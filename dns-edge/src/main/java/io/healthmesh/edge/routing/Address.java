package io.healthmesh.edge.routing;

import io.healthmesh.events.HealthStatus;

/**
 * One rrdata a bucket can return. {@code checked} when a health-checked target of the bucket has
 * this address; its status is then the target's, where a missing entry is UNKNOWN. {@code counted}
 * is what routing takes it for: its status, except an UNKNOWN one under the record set's
 * {@code unknownTargets} (R-OP-2).
 */
public record Address(String rrdata, boolean checked, HealthStatus status, HealthStatus counted) {

  public Address(String rrdata, boolean checked, HealthStatus status) {
    this(rrdata, checked, status, status);
  }

  public static Address unchecked(String rrdata) {
    return new Address(rrdata, false, HealthStatus.UNKNOWN);
  }

  /** UNKNOWN counts as healthy by default: routing fails open rather than drop a target it cannot judge. */
  public boolean healthy() {
    return !checked || counted != HealthStatus.UNHEALTHY;
  }

  /** Healthy only because nothing is known about it. */
  public boolean unknown() {
    return checked && counted == HealthStatus.UNKNOWN;
  }

  /** The same target under another rrdata spelling. */
  Address as(String spelling) {
    return new Address(spelling, checked, status, counted);
  }
}
