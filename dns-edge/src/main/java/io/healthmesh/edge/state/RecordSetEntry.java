package io.healthmesh.edge.state;

import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.edge.routing.Plan;
import java.util.Map;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

/**
 * A record set with its plan under the snapshot's health, the config offset it came from, and
 * each of its rrdatas already parsed into a record, so that answering parses nothing. For A and
 * AAAA, {@code wire} also holds each answer record already encoded after its owner name (type,
 * class, TTL, length, data), for the responder's fast path. {@code dryRun} is the plan of the
 * dry-run record set of the same name and type, decided beside this one and never answered
 * (R-OP-5); null when there is none.
 */
public record RecordSetEntry(ResourceRecordSet config, Name owner, int type, Plan plan, long version,
    Map<String, Record> records, Map<String, byte[]> wire, DryRun dryRun) {

  /** A dry-run record set's plan and the offset of its config record (R-OP-5). */
  public record DryRun(Plan plan, long version) {}
}
