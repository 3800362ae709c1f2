package io.healthmesh.edge.log;

import java.util.Map;

/**
 * Which edge the log records come from, and the producer settings to write them with.
 *
 * @param decisionSampleRate the share of routing decisions written to {@code dns-decisions}
 */
public record LogOrigin(String edge, String region, double decisionSampleRate, Map<String, Object> kafka) {
  public LogOrigin {
    kafka = Map.copyOf(kafka);
  }
}
