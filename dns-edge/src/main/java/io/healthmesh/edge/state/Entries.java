package io.healthmesh.edge.state;

import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.edge.routing.Plan;
import io.healthmesh.edge.rules.DnsConfigRules;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * Builds a {@link RecordSetEntry} from a plan. Parsing rrdatas is most of the cost of planning,
 * so an entry re-planned for a health change takes the parsed records of the entry it replaces
 * when that entry came from the same record-set version: rrdatas are parsed once per version.
 */
final class Entries {
  private Entries() {}

  /**
   * @param previous the entry this one replaces, or null
   * @param dryRun the plan of the dry run beside it (R-OP-5), or null
   */
  static RecordSetEntry entry(ResourceRecordSet rrs, Name owner, int type, Plan plan, long version,
      RecordSetEntry previous, RecordSetEntry.DryRun dryRun) throws TextParseException {
    List<String> rrdatas = rrdatas(plan);
    boolean reuse = previous != null && previous.config() == rrs && previous.type() == type;
    if (reuse && previous.records().size() == rrdatas.size() && previous.records().keySet().containsAll(rrdatas)) {
      return new RecordSetEntry(rrs, owner, type, plan, version, previous.records(), previous.wire(), dryRun);
    }
    Map<String, Record> records = new HashMap<>();
    Map<String, byte[]> wire = new HashMap<>();
    for (String rrdata : rrdatas) {
      Record record = reuse ? previous.records().get(rrdata) : null;
      if (record == null) {
        record = parse(rrs, owner, type, rrdata);
      }
      records.put(rrdata, record);
      if (type == Type.A || type == Type.AAAA) {
        byte[] tail = reuse ? previous.wire().get(rrdata) : null;
        wire.put(rrdata, tail != null ? tail : tail(record, type, rrs.getTtl()));
      }
    }
    return new RecordSetEntry(rrs, owner, type, plan, version, Map.copyOf(records), Map.copyOf(wire), dryRun);
  }

  private static Record parse(ResourceRecordSet rrs, Name owner, int type, String rrdata) throws TextParseException {
    try {
      return DnsConfigRules.record(owner, type, rrs.getTtl(), rrdata);
    } catch (IOException e) {
      throw new TextParseException("rrdata '" + rrdata + "' is not valid " + rrs.getType() + ": " + e.getMessage());
    }
  }

  /** Type, class, TTL, length and data: an answer record after its (compressed) owner name. */
  private static byte[] tail(Record record, int type, long ttl) {
    byte[] data = record.rdataToWireCanonical();
    ByteBuffer tail = ByteBuffer.allocate(10 + data.length);
    tail.putShort((short) type).putShort((short) DClass.IN).putInt((int) ttl).putShort((short) data.length).put(data);
    return tail.array();
  }

  /** Every distinct rrdata the plan can answer with. */
  static List<String> rrdatas(Plan plan) {
    List<String> all = new ArrayList<>();
    collect(plan, all);
    return all.stream().distinct().toList();
  }

  private static void collect(Plan plan, List<String> all) {
    if (plan instanceof Plan.Static s) {
      all.addAll(s.rrdatas());
    }
    plan.buckets().forEach(b -> b.addresses().forEach(a -> all.add(a.rrdata())));
    if (plan instanceof Plan.FailClosed c) {
      all.addAll(c.fallback());
    }
  }
}
