package io.healthmesh.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healthmesh.cli.kafka.TopicScan;
import io.healthmesh.events.XdsClientStatus;
import io.healthmesh.events.XdsStatus;
import io.healthmesh.events.XdsTypeStatus;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code status --xds}: what every xDS server serves and, per connected client and resource type,
 * the version it was last sent, whether it acknowledged it, and its NACKs with the last reason,
 * from the servers' reports in {@code xds-status}.
 */
final class XdsStatusView {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private XdsStatusView() {}

  static int print(ClusterOptions cluster, boolean json, PrintWriter out) throws Exception {
    SchemaRegistryClient registry = cluster.registry();
    Map<String, XdsStatus> latest;
    try (TopicScan scan = new TopicScan(cluster.client(), false)) {
      latest = new TreeMap<>(scan.latest(Topics.XDS_STATUS.name(), Topics.XDS_STATUS.keySerde(registry).deserializer(),
          Topics.XDS_STATUS.valueSerde(registry).deserializer(), w -> System.err.println("warning: " + w)));
    }
    Instant now = Instant.now();
    if (json) {
      ArrayNode servers = JSON.createArrayNode();
      for (XdsStatus s : latest.values()) {
        ObjectNode server = servers.addObject().put("server", s.getServer()).put("ready", s.getReady())
            .put("reporting", !silent(s, now)).put("reportedAt", s.getReportedAt().toString())
            .put("consumers", s.getConsumers()).put("lagRecords", s.getLagRecords());
        s.getLeftOut().forEach(server.putArray("leftOut")::add);
        ArrayNode clients = server.putArray("clients");
        for (XdsClientStatus c : s.getClients()) {
          ObjectNode client = clients.addObject().put("node", c.getNode()).put("userAgent", c.getUserAgent())
              .put("delta", c.getDelta()).put("openedAt", c.getOpenedAt().toString());
          ArrayNode types = client.putArray("types");
          for (XdsTypeStatus t : c.getTypes()) {
            types.addObject().put("type", t.getType()).put("sentVersion", t.getSentVersion())
                .put("sentResources", t.getSentResources()).put("sentAt", t.getSentAt().toString())
                .put("ackedVersion", t.getAckedVersion()).put("awaitingAck", t.getAwaitingAck())
                .put("nacks", t.getNacks()).put("lastError", t.getLastError());
          }
        }
      }
      out.println(JSON.writeValueAsString(JSON.createObjectNode().set("xdsServers", servers)));
      out.flush();
      return 0;
    }
    if (latest.isEmpty()) {
      out.println("no xDS server has reported to " + Topics.XDS_STATUS.name()
          + " (servers report every xds.status.interval.ms)");
      out.flush();
      return 1;
    }
    for (XdsStatus s : latest.values()) {
      out.printf("xDS server %s: %s, %d consumer backend service(s), %d client stream(s), reported %s ago%s%n",
          s.getServer(), s.getReady() ? "ready" : "NOT READY", s.getConsumers(), s.getClients().size(),
          seconds(Duration.between(s.getReportedAt(), now)), silent(s, now) ? " (not reporting)" : "");
      s.getLeftOut().forEach(l -> out.println("  left out (R-XDS-2): " + l));
      if (!s.getClients().isEmpty()) {
        out.printf("  %-28s %-6s %-22s %-18s %-9s %-18s %-5s %s%n", "CLIENT", "KIND", "TYPE", "SENT", "RESOURCES",
            "ACKED", "NACKS", "STATE");
      }
      for (XdsClientStatus c : s.getClients()) {
        for (XdsTypeStatus t : c.getTypes()) {
          String state = t.getAwaitingAck() ? "awaiting answer" : t.getAckedVersion().equals(t.getSentVersion())
              ? "acknowledged" : "rejected: " + t.getLastError();
          out.printf("  %-28s %-6s %-22s %-18s %-9d %-18s %-5d %s%n", c.getNode(), c.getDelta() ? "delta" : "sotw",
              t.getType(), t.getSentVersion(), t.getSentResources(), t.getAckedVersion(), t.getNacks(), state);
        }
      }
    }
    out.flush();
    return 0;
  }

  private static boolean silent(XdsStatus s, Instant now) {
    return s.getReportedAt().isBefore(now.minus(EdgeStatusView.SILENT));
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
