package io.healthmesh.edge.dnssec;

import io.healthmesh.edge.state.RecordSetEntry;
import io.healthmesh.edge.state.Zone;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.NSECRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.NameTooLongException;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * Signs a zone's answer as it is about to be sent (R-DNSSEC-1, R-DNSSEC-2): each RRset in the
 * answer and authority sections gets its signatures right after it, and a negative answer gets
 * its compact denial of existence (RFC 9824): an NSEC at the name denied whose next name is
 * {@code \000.name}, so it covers no other name, listing the types the name holds now (without the
 * one asked for, nor CNAME) or, for a name that does not exist, only RRSIG, NSEC and NXNAME.
 */
public final class ResponseSigner {
  /** RFC 9824's pseudo-type: the NSEC's owner does not exist. */
  public static final int NXNAME = 128;

  private ResponseSigner() {}

  /**
   * @param compactOk the query set the CO flag (RFC 9824): a name that does not exist keeps
   *     NXDOMAIN; otherwise it is NOERROR, which every validator takes as NODATA
   */
  public static void sign(Message response, Zone zone, ZoneSigner signer, Name qname, int qtype, boolean compactOk) {
    Name last = qname;
    for (Record r : response.getSection(Section.ANSWER)) {
      if (r instanceof CNAMERecord c && c.getName().equals(last)) {
        last = c.getTarget();
      }
    }
    boolean positive = false;
    for (Record r : response.getSection(Section.ANSWER)) {
      positive |= r.getName().equals(last) && (qtype == Type.ANY || r.getType() == qtype);
    }
    if (!positive && last.subdomain(zone.origin())) {
      boolean nx = response.getHeader().getRcode() == Rcode.NXDOMAIN;
      long ttl = Math.min(zone.soa().getTTL(), zone.soa().getMinimum()); // RFC 9077
      int[] types = nx ? new int[] {Type.RRSIG, Type.NSEC, NXNAME} : types(zone, last, qtype);
      response.addRecord(new NSECRecord(last, DClass.IN, ttl, next(last), types), Section.AUTHORITY);
      if (nx && !compactOk) {
        response.getHeader().setRcode(Rcode.NOERROR);
      }
    }
    for (int section : new int[] {Section.ANSWER, Section.AUTHORITY}) {
      signSection(response, section, signer);
    }
  }

  private static void signSection(Message response, int section, ZoneSigner signer) {
    List<Record> records = response.getSection(section);
    if (records.isEmpty()) {
      return;
    }
    Map<String, List<Record>> rrsets = new LinkedHashMap<>();
    for (Record r : records) {
      rrsets.computeIfAbsent(r.getName().canonicalize() + "/" + r.getType(), k -> new ArrayList<>()).add(r);
    }
    response.removeAllRecords(section);
    for (List<Record> rrset : rrsets.values()) {
      rrset.forEach(r -> response.addRecord(r, section));
      for (RRSIGRecord sig : signer.sign(rrset)) {
        response.addRecord(sig, section);
      }
    }
  }

  /** The types {@code name} holds now, as its NSEC lists them for a NODATA answer. */
  private static int[] types(Zone zone, Name name, int qtype) {
    TreeSet<Integer> types = new TreeSet<>();
    Map<Integer, RecordSetEntry> owned = zone.types(name);
    if (owned != null) {
      types.addAll(owned.keySet());
    }
    if (name.equals(zone.origin())) {
      types.add(Type.SOA);
      types.add(Type.DNSKEY);
    }
    types.add(Type.RRSIG);
    types.add(Type.NSEC);
    types.remove(qtype);
    types.remove(Type.CNAME);
    return types.stream().mapToInt(Integer::intValue).toArray();
  }

  /** {@code \000.name}, the name right after {@code name} in canonical order; itself when too long. */
  private static Name next(Name name) {
    try {
      return Name.concatenate(Name.fromString("\\000"), name);
    } catch (NameTooLongException | TextParseException e) {
      return name;
    }
  }
}
