package io.healthmesh.edge.status;

import io.healthmesh.edge.dnssec.OnlineSigning;
import io.healthmesh.edge.follow.TopicFollower;
import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.events.EdgePartition;
import io.healthmesh.events.EdgeStatus;
import io.healthmesh.events.EdgeZoneKeys;
import io.healthmesh.observability.StatusReports;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Tells the cluster what this edge serves: every {@code interval} its snapshot's version and,
 * per followed partition, the last offset it includes beside the partition's end, to the
 * compacted {@code edge-status} topic, keyed by the edge's name. Comparing the reports of all
 * edges shows whether they serve the same state ({@code healthctl status --edges}). A broker that
 * is away only costs reports, which are counted; answering never waits for one.
 */
public final class EdgeStatusReporter implements AutoCloseable {
  private final String edge;
  private final String region;
  private final TopicFollower follower;
  private final Supplier<Snapshot> snapshot;
  private final OnlineSigning signing;
  private final Supplier<String> notReady;
  private final StatusReports<EdgeStatus> reports;

  public EdgeStatusReporter(String edge, String region, Map<String, Object> kafka, SchemaRegistryClient registry,
      TopicFollower follower, Supplier<Snapshot> snapshot, OnlineSigning signing, Supplier<String> notReady,
      Duration interval, MeterRegistry meters) {
    this.signing = signing;
    this.notReady = notReady;
    this.edge = edge;
    this.region = region;
    this.follower = follower;
    this.snapshot = snapshot;
    this.reports = new StatusReports<>(Topics.EDGE_STATUS, edge, this::status, kafka, registry, interval, meters,
        "healthmesh.edge.status.reports");
  }

  /** The report as it would be sent now. */
  public EdgeStatus status() {
    Snapshot s = snapshot.get();
    Map<String, Long> ends = follower.endOffsets();
    List<EdgePartition> partitions = new ArrayList<>();
    for (String tp : follower.partitions()) {
      int dash = tp.lastIndexOf('-');
      partitions.add(EdgePartition.newBuilder().setTopic(tp.substring(0, dash))
          .setPartition(Integer.parseInt(tp.substring(dash + 1))).setServed(s.offsets().getOrDefault(tp, -1L))
          .setEnd(ends.getOrDefault(tp, -1L)).build());
    }
    List<EdgeZoneKeys> keys = new ArrayList<>();
    signing.keyTags(s.zones()).forEach((zone, tags) ->
        keys.add(EdgeZoneKeys.newBuilder().setZone(zone).setKeyTags(tags).build()));
    String why = notReady.get();
    return EdgeStatus.newBuilder().setEdge(edge).setRegion(region).setReady(why == null)
        .setDnssec(keys).setNotReady(why == null ? "" : why)
        .setSnapshotVersion(s.version()).setBuiltAt(Instant.ofEpochMilli(s.builtAtMillis()))
        .setReportedAt(Instant.now()).setLagRecords(follower.lagRecords())
        .setStalenessMillis(follower.stalenessMillis()).setPartitions(partitions).build();
  }

  @Override
  public void close() {
    reports.close();
  }
}
