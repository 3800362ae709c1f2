package io.healthmesh.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healthmesh.cli.kafka.TopicScan;
import io.healthmesh.events.EdgePartition;
import io.healthmesh.events.EdgeStatus;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code status --edges}: which state each DNS edge serves, from their reports in
 * {@code edge-status}. Edges serve the same state when their snapshots reach the same offset of
 * every followed partition; an edge behind the most advanced one says by how many records, and
 * how long it has not known itself caught up.
 */
final class EdgeStatusView {
  /** A report older than this (six of the default 5 s intervals) means the edge stopped reporting. */
  static final Duration SILENT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private EdgeStatusView() {}

  /** A row: one edge's report and what it means beside the others. */
  record Row(EdgeStatus status, long behindTopics, long behindEdges, boolean silent) {}

  static int print(ClusterOptions cluster, boolean json, PrintWriter out) throws Exception {
    SchemaRegistryClient registry = cluster.registry();
    Map<String, EdgeStatus> latest;
    try (TopicScan scan = new TopicScan(cluster.client(), false)) {
      latest = new TreeMap<>(scan.latest(Topics.EDGE_STATUS.name(), Topics.EDGE_STATUS.keySerde(registry).deserializer(),
          Topics.EDGE_STATUS.valueSerde(registry).deserializer(), w -> System.err.println("warning: " + w)));
    }
    List<Row> rows = rows(latest, Instant.now());
    boolean same = rows.stream().filter(r -> r.status().getReady() && !r.silent()).allMatch(r -> r.behindEdges() == 0);
    if (json) {
      ArrayNode list = JSON.createArrayNode();
      for (Row r : rows) {
        EdgeStatus s = r.status();
        list.addObject().put("edge", s.getEdge()).put("region", s.getRegion()).put("ready", s.getReady())
            .put("snapshotVersion", s.getSnapshotVersion()).put("behindTopics", r.behindTopics())
            .put("behindOtherEdges", r.behindEdges()).put("stalenessMillis", s.getStalenessMillis())
            .put("reportedAt", s.getReportedAt().toString()).put("reporting", !r.silent())
            .put("notReady", s.getNotReady());
      }
      Map<String, Map<String, List<Integer>>> keySets = keySets(rows);
      ObjectNode doc = JSON.createObjectNode().put("sameState", same && !rows.isEmpty())
          .put("sameDnskeys", keySets.values().stream().allMatch(byEdge -> new HashSet<>(byEdge.values()).size() <= 1));
      doc.set("dnssec", JSON.valueToTree(keySets));
      doc.set("edges", list);
      out.println(JSON.writeValueAsString(doc));
      out.flush();
      return 0;
    }
    if (rows.isEmpty()) {
      out.println("no edge has reported to " + Topics.EDGE_STATUS.name() + " (edges report every edge.status.interval.ms)");
      out.flush();
      return 1;
    }
    out.printf("%-24s %-16s %-6s %-9s %-14s %-14s %-12s %s%n", "EDGE", "REGION", "READY", "VERSION",
        "BEHIND TOPICS", "BEHIND EDGES", "STALE FOR", "LAST REPORT");
    Instant now = Instant.now();
    for (Row r : rows) {
      EdgeStatus s = r.status();
      out.printf("%-24s %-16s %-6s %-9d %-14s %-14s %-12s %s%n", s.getEdge(), s.getRegion(), s.getReady() ? "yes" : "no",
          s.getSnapshotVersion(), r.behindTopics() + " rec", r.behindEdges() + " rec",
          seconds(s.getStalenessMillis()), seconds(Duration.between(s.getReportedAt(), now).toMillis()) + " ago"
              + (r.silent() ? " (not reporting)" : ""));
    }
    for (Row r : rows) {
      if (!r.status().getNotReady().isEmpty()) {
        out.println(r.status().getEdge() + " is not ready: " + r.status().getNotReady());
      }
    }
    keySets(rows).forEach((zone, byEdge) -> {
      boolean agree = new HashSet<>(byEdge.values()).size() == 1;
      out.println("dnssec " + zone + ": " + (agree ? "DNSKEY set " + byEdge.values().iterator().next() + " at all "
          + byEdge.size() + " edge(s)" : "edges serve different DNSKEY sets (R-DNSSEC-3): " + byEdge));
    });
    long reporting = rows.stream().filter(r -> !r.silent()).count();
    out.println(same ? "all " + reporting + " reporting edge(s) serve the same state"
        : "edges serve different states: BEHIND EDGES counts the records an edge lacks against the most advanced one");
    out.flush();
    return 0;
  }

  /** Per signed zone, the key tags each reporting edge publishes (R-DNSSEC-3). */
  static Map<String, Map<String, List<Integer>>> keySets(List<Row> rows) {
    Map<String, Map<String, List<Integer>>> zones = new TreeMap<>();
    for (Row r : rows) {
      if (!r.silent()) {
        r.status().getDnssec().forEach(z -> zones.computeIfAbsent(z.getZone(), k -> new TreeMap<>())
            .put(r.status().getEdge(), z.getKeyTags()));
      }
    }
    return zones;
  }

  /** Each edge beside the topics' ends and beside the most advanced reporting edge. */
  static List<Row> rows(Map<String, EdgeStatus> latest, Instant now) {
    Map<String, Long> furthest = new HashMap<>();
    for (EdgeStatus s : latest.values()) {
      if (isSilent(s, now)) {
        continue;
      }
      for (EdgePartition p : s.getPartitions()) {
        furthest.merge(p.getTopic() + "-" + p.getPartition(), p.getServed(), Math::max);
      }
    }
    return latest.values().stream().map(s -> {
      long behindTopics = 0;
      long behindEdges = 0;
      for (EdgePartition p : s.getPartitions()) {
        if (p.getEnd() >= 0) {
          behindTopics += Math.max(0, p.getEnd() - 1 - p.getServed());
        }
        behindEdges += Math.max(0, furthest.getOrDefault(p.getTopic() + "-" + p.getPartition(), -1L) - p.getServed());
      }
      return new Row(s, behindTopics, behindEdges, isSilent(s, now));
    }).toList();
  }

  private static boolean isSilent(EdgeStatus s, Instant now) {
    return s.getReportedAt().isBefore(now.minus(SILENT));
  }

  private static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }
}
