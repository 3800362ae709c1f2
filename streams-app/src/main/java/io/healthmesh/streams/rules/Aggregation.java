package io.healthmesh.streams.rules;

import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.events.HealthStatus;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/** The aggregation rules of docs/rules.md sections 2, 3 and 7 (R-OP-4), as pure functions of counts. */
public final class Aggregation {
  /** R-AGG-1 defaults, used for a backend service's own published state. */
  public static final Thresholds DEFAULT = new Thresholds(60, 1, false);
  /** R-AGG-5, R-DNSHC-2: internal passthrough NLB, no backends at all counts as healthy. */
  public static final Thresholds PASSTHROUGH_LB = new Thresholds(20, 1, true);
  /** R-DNSHC-3: application and proxy LBs are healthy while one backend is healthy. */
  public static final Thresholds ANY_HEALTHY = new Thresholds(0, 1, false);

  private Aggregation() {}

  /** A percent threshold, a minimum count and what an empty set of endpoints means. */
  public record Thresholds(int healthyPercent, int minHealthy, boolean emptyIsHealthy) {}

  /** Endpoints of a service by state. */
  public record Counts(int healthy, int unhealthy, int unknown) {
    public int total() {
      return healthy + unhealthy + unknown;
    }
  }

  /**
   * R-AGG-2 and R-AGG-3: HEALTHY if both thresholds pass with every UNKNOWN counted UNHEALTHY,
   * UNHEALTHY if either fails with every UNKNOWN counted HEALTHY, UNKNOWN otherwise.
   */
  public static HealthStatus status(Counts counts, Thresholds t) {
    if (counts.total() == 0 && t.emptyIsHealthy()) {
      return HealthStatus.HEALTHY;
    }
    if (passes(counts.healthy(), counts.total(), t)) {
      return HealthStatus.HEALTHY;
    }
    if (!passes(counts.healthy() + counts.unknown(), counts.total(), t)) {
      return HealthStatus.UNHEALTHY;
    }
    return HealthStatus.UNKNOWN;
  }

  private static boolean passes(int healthy, int total, Thresholds t) {
    // Integer arithmetic: 3 of 4 is exactly 75%, never 74.999...
    return (long) healthy * 100 >= (long) t.healthyPercent() * total && healthy >= t.minHealthy();
  }

  /**
   * How many more HEALTHY endpoints could fail before the thresholds fail (negative: how many are
   * missing), counting UNKNOWN endpoints as unhealthy: how close a source is to flipping.
   */
  public static int margin(Counts counts, Thresholds t) {
    int required = Math.max(t.minHealthy(), (int) Math.ceil(t.healthyPercent() * counts.total() / 100.0));
    return counts.healthy() - required;
  }

  /**
   * How a composite's sources add up: how many must be HEALTHY, and the states of the sources that
   * must be HEALTHY whatever the count (R-CH-4, R-OP-4).
   */
  public record Style(String name, int required, List<HealthStatus> critical) {
    /** The seed's AND (R-CH-4): every one of {@code sources} must be HEALTHY. */
    public static Style all(int sources) {
      return new Style("ALL", sources, List.of());
    }

    public static Style of(CompositeHealthCheck c, Function<String, HealthStatus> statusOf) {
      int required = switch (c.getStyle()) {
        case ANY -> 1;
        case AT_LEAST_N -> c.getMinHealthySources();
        default -> c.getHealthSources().size();
      };
      return new Style(c.getStyle().name(), required, c.getCriticalSources().stream().map(statusOf).toList());
    }
  }

  /**
   * R-CH-4, R-OP-4, three-valued like R-AGG-3: UNHEALTHY when a critical source is UNHEALTHY or too
   * few could be HEALTHY even if every UNKNOWN one were; HEALTHY when enough are and every critical
   * one is; UNKNOWN otherwise, and when there are no sources at all.
   */
  public static HealthStatus composite(Counts sources, Style style) {
    if (style.critical().contains(HealthStatus.UNHEALTHY) || sources.healthy() + sources.unknown() < style.required()) {
      return HealthStatus.UNHEALTHY;
    }
    if (sources.total() == 0 || style.critical().contains(HealthStatus.UNKNOWN) || sources.healthy() < style.required()) {
      return HealthStatus.UNKNOWN;
    }
    return HealthStatus.HEALTHY;
  }

  /**
   * Like {@link #margin}: how many more HEALTHY sources can fail before the composite fails its
   * style; at most 0 while a critical source is HEALTHY (losing it flips it), negative while one is not.
   */
  public static int compositeMargin(Counts sources, Style style) {
    int margin = sources.healthy() - style.required();
    if (style.critical().stream().anyMatch(s -> s != HealthStatus.HEALTHY)) {
      return Math.min(margin, -1);
    }
    return style.critical().isEmpty() ? margin : Math.min(margin, 0);
  }

  /** Sources by state. */
  public static Counts count(Collection<HealthStatus> statuses) {
    int healthy = 0;
    int unhealthy = 0;
    for (HealthStatus s : statuses) {
      healthy += s == HealthStatus.HEALTHY ? 1 : 0;
      unhealthy += s == HealthStatus.UNHEALTHY ? 1 : 0;
    }
    return new Counts(healthy, unhealthy, statuses.size() - healthy - unhealthy);
  }
}
