package io.healthmesh.streams.rules;

import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthCheckSpec;

/**
 * What an entity is judged by, in the words {@code healthctl status} prints in its THRESHOLDS
 * column: one wording, whether the topology answers from its stores or the CLI from the
 * configuration topics.
 */
public final class Thresholds {
  private Thresholds() {}

  /** An endpoint's: "2 up/2 down", with R-OP-3's ", dwell 10s" and ", damp >3/300s", and R-PQ-2's ", quorum 50% of >=1". */
  public static String of(HealthCheckSpec spec) {
    String thresholds = spec.getHealthyThreshold() + " up/" + spec.getUnhealthyThreshold() + " down";
    if (spec.getMinDwellSec() > 0) {
      thresholds += ", dwell " + spec.getMinDwellSec() + "s";
    }
    if (spec.getFlapDamping() != null) {
      thresholds += ", damp >" + spec.getFlapDamping().getMaxFailures() + "/" + spec.getFlapDamping().getWindowSec() + "s";
    }
    if (spec.getProberQuorum() != null) {
      thresholds += ", quorum " + spec.getProberQuorum().getHealthyPercent() + "% of >="
          + spec.getProberQuorum().getMinProbers();
    }
    return thresholds;
  }

  /** A health source's, from its aggregation policy: ">=50% and >=1". */
  public static String of(HealthAggregationPolicy policy) {
    return ">=" + policy.getHealthyPercentThreshold() + "% and >=" + policy.getMinHealthyThreshold();
  }

  /** A composite's (R-OP-4): "ALL", "ANY", ">=2 of 3", with "+critical a,b". */
  public static String of(CompositeHealthCheck c) {
    String style = switch (c.getStyle()) {
      case AT_LEAST_N -> ">=" + c.getMinHealthySources() + " of " + c.getHealthSources().size();
      default -> c.getStyle().name();
    };
    return c.getCriticalSources().isEmpty() ? style : style + " +critical " + String.join(",", c.getCriticalSources());
  }
}
