package io.healthmesh.xds;

import io.healthmesh.events.XdsClientStatus;
import io.healthmesh.events.XdsStatus;
import io.healthmesh.events.XdsTypeStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The report an xDS server sends to {@code xds-status}: itself, and each client's streams as {@link StreamTracker} saw them. */
final class XdsStatusReport {
  private XdsStatusReport() {}

  static XdsStatus of(String server, boolean ready, int consumers, long lagRecords,
      Map<String, List<String>> leftOut, List<ClientStream.View> clients) {
    List<String> left = new ArrayList<>();
    leftOut.forEach((consumer, problems) -> problems.forEach(p -> left.add(consumer + ": " + p)));
    left.sort(null);
    List<XdsClientStatus> out = new ArrayList<>();
    for (ClientStream.View c : clients) {
      List<XdsTypeStatus> types = new ArrayList<>();
      c.types().forEach((type, t) -> types.add(XdsTypeStatus.newBuilder().setType(type)
          .setSentVersion(t.sentVersion()).setSentResources(t.sentResources())
          .setSentAt(Instant.ofEpochMilli(t.sentAtMillis())).setAckedVersion(t.ackedVersion())
          .setAwaitingAck(t.awaiting()).setNacks(t.nacks()).setLastError(t.lastError()).build()));
      out.add(XdsClientStatus.newBuilder().setStream(c.stream()).setNode(c.node()).setUserAgent(c.userAgent())
          .setDelta(c.delta()).setOpenedAt(Instant.ofEpochMilli(c.openedAtMillis())).setTypes(types).build());
    }
    return XdsStatus.newBuilder().setServer(server).setReady(ready).setReportedAt(Instant.now())
        .setConsumers(consumers).setLagRecords(lagRecords).setLeftOut(left).setClients(out).build();
  }
}
