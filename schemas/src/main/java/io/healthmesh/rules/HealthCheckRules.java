package io.healthmesh.rules;

import io.healthmesh.config.FlapDamping;
import io.healthmesh.config.HealthCheckProtocol;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.ProberQuorum;
import java.util.ArrayList;
import java.util.List;

/**
 * Limits of a health check, shared by the backend services the topology judges and the external
 * endpoints record sets check, so that the CLI, the topology and the edge apply one rule.
 */
public final class HealthCheckRules {
  /** R-DNSHC-4: external endpoints are probed every 30 to 300 s; shorter is allowed with a warning. */
  public static final int EXTERNAL_MIN_INTERVAL_SEC = 30;
  public static final int EXTERNAL_MAX_INTERVAL_SEC = 300;
  /** R-OP-3: a state held back longer than an hour is no longer health checking. */
  public static final int MAX_DWELL_SEC = 3_600;
  private static final int DAY_SEC = 86_400;
  /** R-PQ-5: what the cloud reads of a body for a content check. */
  public static final int MAX_RESPONSE = 1_024;
  private static final java.util.regex.Pattern DNS_NAME = java.util.regex.Pattern.compile(
      "(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");

  private HealthCheckRules() {}

  /** R-EP-2, R-EP-4: every problem of {@code hc}, each prefixed with {@code field}. */
  public static List<String> problems(String field, HealthCheckSpec hc) {
    List<String> problems = new ArrayList<>();
    atLeastOne(field + ".healthyThreshold", hc.getHealthyThreshold(), "R-EP-2", problems);
    atLeastOne(field + ".unhealthyThreshold", hc.getUnhealthyThreshold(), "R-EP-2", problems);
    atLeastOne(field + ".checkIntervalSec", hc.getCheckIntervalSec(), "R-EP-4", problems);
    atLeastOne(field + ".staleAfterIntervals", hc.getStaleAfterIntervals(), "R-EP-4", problems);
    damping(field, hc, problems);
    quorum(field, hc, problems);
    kind(field, hc, problems);
    return problems;
  }

  /** R-PQ-5: the fields of one kind of check are set only on that kind, and hold what it can send. */
  private static void kind(String field, HealthCheckSpec hc, List<String> problems) {
    HealthCheckProtocol p = hc.getProtocol();
    boolean http = p == HealthCheckProtocol.HTTP || p == HealthCheckProtocol.HTTPS || p == HealthCheckProtocol.HTTP2;
    if (!hc.getResponse().isEmpty() && !http) {
      problems.add(field + ".response: only HTTP, HTTPS and HTTP2 checks read a response body, not " + p + " (R-PQ-5)");
    }
    if (hc.getResponse().length() > MAX_RESPONSE) {
      problems.add(field + ".response: " + hc.getResponse().length() + " characters; it is looked for in the first "
          + MAX_RESPONSE + " bytes of the body (R-PQ-5)");
    }
    if (!hc.getGrpcServiceName().isEmpty() && p != HealthCheckProtocol.GRPC) {
      problems.add(field + ".grpcServiceName: only GRPC checks ask a service, not " + p + " (R-PQ-5)");
    }
    String host = hc.getHost();
    if (!host.isEmpty() && (p == HealthCheckProtocol.TCP || p == HealthCheckProtocol.OTHER)) {
      problems.add(field + ".host: a Host header and TLS server name; " + p + " checks send neither (R-PQ-5)");
    }
    if (!host.isEmpty() && !DNS_NAME.matcher(host).matches()) {
      problems.add(field + ".host: '" + host + "' is not a DNS name (R-PQ-5)");
    }
  }

  /** R-PQ-2: a percent that can be met, and a minimum a fleet can have. */
  private static void quorum(String field, HealthCheckSpec hc, List<String> problems) {
    ProberQuorum q = hc.getProberQuorum();
    if (q != null) {
      between(field + ".proberQuorum.healthyPercent", q.getHealthyPercent(), 1, 100, "R-PQ-2", problems);
      between(field + ".proberQuorum.minProbers", q.getMinProbers(), 1, 100, "R-PQ-2", problems);
    }
  }

  /** R-OP-3: a dwell of up to an hour; damping counts and times within a day, the longest suppression not shorter than the first. */
  private static void damping(String field, HealthCheckSpec hc, List<String> problems) {
    between(field + ".minDwellSec", hc.getMinDwellSec(), 0, MAX_DWELL_SEC, "R-OP-3", problems);
    FlapDamping f = hc.getFlapDamping();
    if (f == null) {
      return;
    }
    between(field + ".flapDamping.maxFailures", f.getMaxFailures(), 1, 100, "R-OP-3", problems);
    between(field + ".flapDamping.windowSec", f.getWindowSec(), 1, DAY_SEC, "R-OP-3", problems);
    between(field + ".flapDamping.suppressSec", f.getSuppressSec(), 1, DAY_SEC, "R-OP-3", problems);
    between(field + ".flapDamping.maxSuppressSec", f.getMaxSuppressSec(), Math.max(1, f.getSuppressSec()), DAY_SEC, "R-OP-3", problems);
  }

  private static void between(String field, int value, int min, int max, String rule, List<String> problems) {
    if (value < min || value > max) {
      problems.add(field + ": " + value + " is outside " + min + ".." + max + " (" + rule + ")");
    }
  }

  /** The problems of a check of external endpoints: those of any check, and R-DNSHC-4's upper bound. */
  public static List<String> externalProblems(String field, HealthCheckSpec hc) {
    List<String> problems = problems(field, hc);
    if (hc.getCheckIntervalSec() > EXTERNAL_MAX_INTERVAL_SEC) {
      problems.add(field + ".checkIntervalSec: " + hc.getCheckIntervalSec() + " s is above the " + EXTERNAL_MAX_INTERVAL_SEC
          + " s maximum for external endpoints (R-DNSHC-4)");
    }
    return problems;
  }

  /** What is allowed but outside the usual range (R-DNSHC-4): said at validate and apply, never rejected. */
  public static List<String> externalWarnings(String field, HealthCheckSpec hc) {
    int interval = hc.getCheckIntervalSec();
    if (interval >= 1 && interval < EXTERNAL_MIN_INTERVAL_SEC) {
      return List.of(field + ".checkIntervalSec: " + interval + " s is below the usual " + EXTERNAL_MIN_INTERVAL_SEC
          + " s minimum for external endpoints; accepted, and every endpoint of the record set is probed that often"
          + " (R-DNSHC-4)");
    }
    return List.of();
  }

  private static void atLeastOne(String field, int value, String rule, List<String> problems) {
    if (value < 1) {
      problems.add(field + ": " + value + " must be at least 1 (" + rule + ")");
    }
  }
}
