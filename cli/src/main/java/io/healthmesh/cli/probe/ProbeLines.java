package io.healthmesh.cli.probe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healthmesh.cli.config.AvroJson;
import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import java.time.Instant;
import java.util.List;

/**
 * Probe results as JSON, one per line, with the field names of the {@code ProbeResult} schema;
 * {@code eventTime} (ISO-8601 or epoch milliseconds) defaults to now.
 */
public final class ProbeLines {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ProbeLines() {}

  /** A parsed line: a result, or why the line was rejected. */
  public record Parsed(ProbeResult result, String problem) {}

  public static Parsed parse(String line, Instant now) {
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (JsonProcessingException e) {
      return new Parsed(null, "not JSON: " + e.getOriginalMessage());
    }
    if (!(node instanceof ObjectNode object)) {
      return new Parsed(null, "expected a JSON object");
    }
    if (!object.has("eventTime")) {
      object.put("eventTime", now.toEpochMilli());
    }
    ProbeResult result;
    try {
      result = AvroJson.read(object, ProbeResult.getClassSchema(), List.of());
    } catch (AvroJson.ConversionException e) {
      return new Parsed(null, String.join("; ", e.problems()));
    }
    String problem = problem(result, now);
    return problem == null ? new Parsed(result, null) : new Parsed(null, problem);
  }

  /** What the topology would dead-letter anyway, caught before it is published; null when none. */
  public static String problem(ProbeResult r, Instant now) {
    if (r.getType() == ProbeRecordType.HEARTBEAT) {
      return null;
    }
    if (r.getEndpointId().isBlank()) {
      return "endpointId: required (the endpoint id, or the address of an external endpoint) (R-EP-1)";
    }
    if (r.getBackendService() != null && r.getBackendService().isBlank()) {
      return "backendService: empty; leave it out for an external endpoint (R-EP-1)";
    }
    if (r.getEventTime().isAfter(now.plusSeconds(300))) {
      return "eventTime: " + r.getEventTime() + " is in the future (R-EP-1)";
    }
    return null;
  }

  /** The probe-results key: the backend service, or the external endpoint's address. */
  public static String key(ProbeResult r) {
    return r.getBackendService() != null ? r.getBackendService() : r.getEndpointId();
  }
}
