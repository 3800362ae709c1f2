package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.events.EdgePartition;
import io.healthmesh.events.EdgeStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class EdgeStatusViewTest {
  private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

  @Test
  void countsRecordsBehindTheTopicsAndTheMostAdvancedEdge_whenOneEdgeLags() {
    Map<String, EdgeStatus> latest = new TreeMap<>();
    latest.put("a", status("a", NOW, 99, 49));
    latest.put("b", status("b", NOW, 90, 49));

    List<EdgeStatusView.Row> rows = EdgeStatusView.rows(latest, NOW);

    assertThat(rows).extracting(EdgeStatusView.Row::behindEdges).containsExactly(0L, 9L);
    assertThat(rows).extracting(EdgeStatusView.Row::behindTopics).containsExactly(3L, 12L);
    assertThat(rows).noneMatch(EdgeStatusView.Row::silent);
  }

  @Test
  void leavesASilentEdgeOutOfTheComparison_whenItStoppedReporting() {
    Map<String, EdgeStatus> latest = new TreeMap<>();
    latest.put("a", status("a", NOW, 90, 49));
    latest.put("gone", status("gone", NOW.minusSeconds(120), 99, 49));

    List<EdgeStatusView.Row> rows = EdgeStatusView.rows(latest, NOW);

    assertThat(rows.get(0).behindEdges()).as("the silent edge's offsets do not count").isZero();
    assertThat(rows.get(1).silent()).isTrue();
  }

  @Test
  void groupsEachSignedZonesKeyTagsByEdge_soEdgesThatDisagreeShow_R_DNSSEC_3() {
    Map<String, EdgeStatus> latest = new TreeMap<>();
    latest.put("a", keys(status("a", NOW, 99, 49), List.of(4004, 54428)));
    latest.put("b", keys(status("b", NOW, 99, 49), List.of(29923, 54428)));
    latest.put("gone", keys(status("gone", NOW.minusSeconds(120), 99, 49), List.of(1)));

    Map<String, Map<String, List<Integer>>> sets = EdgeStatusView.keySets(EdgeStatusView.rows(latest, NOW));

    assertThat(sets).containsOnlyKeys("example.com.");
    assertThat(sets.get("example.com.")).containsExactly(Map.entry("a", List.of(4004, 54428)),
        Map.entry("b", List.of(29923, 54428)));
  }

  private static EdgeStatus keys(EdgeStatus s, List<Integer> tags) {
    return EdgeStatus.newBuilder(s).setDnssec(List.of(io.healthmesh.events.EdgeZoneKeys.newBuilder()
        .setZone("example.com.").setKeyTags(tags).build())).build();
  }

  private static EdgeStatus status(String edge, Instant at, long healthServed, long configServed) {
    return EdgeStatus.newBuilder().setEdge(edge).setRegion("us-east1").setReady(true).setSnapshotVersion(7)
        .setBuiltAt(at).setReportedAt(at).setLagRecords(0).setStalenessMillis(100)
        .setPartitions(List.of(
            EdgePartition.newBuilder().setTopic("health-state").setPartition(0).setServed(healthServed).setEnd(103).build(),
            EdgePartition.newBuilder().setTopic("config.resource-record-set").setPartition(0).setServed(configServed)
                .setEnd(50).build()))
        .build();
  }
}
