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
 * class, TTL, length, data), for the responder's fast path.
 */
public record RecordSetEntry(ResourceRecordSet config, Name owner, int type, Plan plan, long version,
    Map<String, Record> records, Map<String, byte[]> wire) {}
