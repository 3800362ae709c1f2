package io.healthmesh.cli.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.events.ProbeRecordType;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ProbeLinesTest {
  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  @Test
  void defaultsEventTimeToNow_andKeysByServiceOrAddress() {
    ProbeLines.Parsed service = ProbeLines.parse("{\"backendService\":\"s\",\"endpointId\":\"vm-1\",\"success\":true}", NOW);
    assertThat(service.result().getEventTime()).isEqualTo(NOW);
    assertThat(ProbeLines.key(service.result())).isEqualTo("s");
    ProbeLines.Parsed external = ProbeLines.parse("{\"endpointId\":\"10.0.0.7\"}", NOW);
    assertThat(ProbeLines.key(external.result())).isEqualTo("10.0.0.7");
  }

  @Test
  void rejectsAResultFromTheFuture_orWithoutEndpoint() {
    // R-EP-1: a result is one check of one endpoint at the time it was observed
    assertThat(ProbeLines.parse("{\"endpointId\":\"e\",\"eventTime\":\"2026-11-30T13:00:00Z\"}", NOW).problem())
        .isEqualTo("eventTime: 2026-11-30T13:00:00Z is in the future (R-EP-1)");
    assertThat(ProbeLines.parse("{\"backendService\":\"s\"}", NOW).problem()).startsWith("endpointId: required");
    assertThat(ProbeLines.parse("{\"backendService\":\"\",\"endpointId\":\"e\"}", NOW).problem())
        .startsWith("backendService: empty");
  }

  @Test
  void acceptsHeartbeats_andNamesBadJson() {
    assertThat(ProbeLines.parse("{\"type\":\"HEARTBEAT\"}", NOW).result().getType()).isEqualTo(ProbeRecordType.HEARTBEAT);
    assertThat(ProbeLines.parse("[1]", NOW).problem()).isEqualTo("expected a JSON object");
    assertThat(ProbeLines.parse("{\"endpointId\":\"e\",\"oops\":1}", NOW).problem()).startsWith("oops: unknown field");
  }
}
