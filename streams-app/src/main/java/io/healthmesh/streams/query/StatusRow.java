package io.healthmesh.streams.query;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProberView;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One entity as {@code healthctl status} shows it: its state and what judges it. Its JSON is both
 * what the topology answers a query with and what {@code healthctl status -o json} prints.
 *
 * @param thresholds null when its configuration is not known
 */
public record StatusRow(EntityKey key, HealthState state, String thresholds) {

  public void write(JsonGenerator json) throws IOException {
    HealthState s = state;
    json.writeStartObject();
    json.writeStringField("kind", key.getKind().name());
    json.writeStringField("name", key.getName());
    json.writeStringField("state", s.getStatus().name());
    json.writeStringField("since", s.getSince().toString());
    json.writeStringField("region", s.getRegion());
    json.writeNumberField("healthy", s.getHealthyCount());
    json.writeNumberField("unhealthy", s.getUnhealthyCount());
    json.writeNumberField("unknown", s.getUnknownCount());
    json.writeNumberField("version", s.getVersion());
    if (thresholds != null) {
      json.writeStringField("thresholds", thresholds);
    }
    if (s.getLastKnownStatus() != null) {
      json.writeStringField("lastKnown", s.getLastKnownStatus().name()); // R-OP-2
    }
    if (!s.getProbers().isEmpty()) {
      json.writeArrayFieldStart("probers"); // R-PQ-4: the views that decided it
      for (ProberView v : s.getProbers()) {
        json.writeStartObject();
        json.writeStringField("prober", v.getProber());
        json.writeStringField("state", v.getStatus().name());
        json.writeStringField("lastResult", v.getLastEventTime().toString());
        json.writeEndObject();
      }
      json.writeEndArray();
    }
    json.writeEndObject();
  }

  /** The row {@link #write} wrote. */
  public static StatusRow read(JsonNode row) {
    List<ProberView> probers = new ArrayList<>();
    row.path("probers").forEach(v -> probers.add(new ProberView(v.get("prober").asText(),
        HealthStatus.valueOf(v.get("state").asText()), Instant.parse(v.get("lastResult").asText()))));
    HealthState state = HealthState.newBuilder()
        .setStatus(HealthStatus.valueOf(row.get("state").asText()))
        .setSince(Instant.parse(row.get("since").asText()))
        .setRegion(row.path("region").asText(""))
        .setHealthyCount(row.path("healthy").asInt())
        .setUnhealthyCount(row.path("unhealthy").asInt())
        .setUnknownCount(row.path("unknown").asInt())
        .setVersion(row.path("version").asLong())
        .setLastKnownStatus(row.hasNonNull("lastKnown") ? HealthStatus.valueOf(row.get("lastKnown").asText()) : null)
        .setProbers(probers).build();
    return new StatusRow(new EntityKey(EntityKind.valueOf(row.get("kind").asText()), row.get("name").asText()),
        state, row.hasNonNull("thresholds") ? row.get("thresholds").asText() : null);
  }
}
