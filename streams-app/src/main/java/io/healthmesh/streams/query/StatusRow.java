package io.healthmesh.streams.query;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProberView;
import io.healthmesh.schemas.IsoInstants;
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
    json.writeStringField("since", IsoInstants.format(s.getSince()));
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
        json.writeStringField("lastResult", IsoInstants.format(v.getLastEventTime()));
        json.writeEndObject();
      }
      json.writeEndArray();
    }
    json.writeEndObject();
  }

  /** The row {@link #write} wrote, read from {@code json} at its START_OBJECT, field by field. */
  public static StatusRow read(JsonParser json) throws IOException {
    EntityKind kind = null;
    String name = null;
    String thresholds = null;
    HealthStatus status = HealthStatus.UNKNOWN;
    HealthStatus lastKnown = null;
    Instant since = Instant.EPOCH;
    String region = "";
    int healthy = 0;
    int unhealthy = 0;
    int unknown = 0;
    long version = 0;
    List<ProberView> probers = List.of();
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      String field = json.currentName();
      json.nextToken();
      switch (field) {
        case "kind" -> kind = EntityKind.valueOf(json.getText());
        case "name" -> name = json.getText();
        case "state" -> status = HealthStatus.valueOf(json.getText());
        case "since" -> since = IsoInstants.parse(json.getText());
        case "region" -> region = json.getText();
        case "healthy" -> healthy = json.getIntValue();
        case "unhealthy" -> unhealthy = json.getIntValue();
        case "unknown" -> unknown = json.getIntValue();
        case "version" -> version = json.getLongValue();
        case "thresholds" -> thresholds = json.getText();
        case "lastKnown" -> lastKnown = HealthStatus.valueOf(json.getText());
        case "probers" -> probers = probers(json);
        default -> json.skipChildren();
      }
    }
    if (kind == null || name == null) {
      throw new IOException("a status row without its kind or name");
    }
    // the generated constructor: the builder copies and checks every field, several times the cost
    HealthState state = new HealthState(status, since, region, healthy, unhealthy, unknown, version, null, lastKnown,
        probers);
    return new StatusRow(new EntityKey(kind, name), state, thresholds);
  }

  private static List<ProberView> probers(JsonParser json) throws IOException {
    List<ProberView> probers = new ArrayList<>();
    while (json.nextToken() == JsonToken.START_OBJECT) {
      String prober = null;
      HealthStatus status = HealthStatus.UNKNOWN;
      Instant last = Instant.EPOCH;
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        json.nextToken();
        switch (field) {
          case "prober" -> prober = json.getText();
          case "state" -> status = HealthStatus.valueOf(json.getText());
          case "lastResult" -> last = IsoInstants.parse(json.getText());
          default -> json.skipChildren();
        }
      }
      probers.add(new ProberView(prober, status, last));
    }
    return probers;
  }
}
