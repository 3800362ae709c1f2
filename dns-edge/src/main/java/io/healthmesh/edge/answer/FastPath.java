package io.healthmesh.edge.answer;

import io.healthmesh.edge.dnssec.OnlineSigning;
import io.healthmesh.edge.dnssec.RRsetKey;
import io.healthmesh.edge.dnssec.ZoneSigner;
import io.healthmesh.edge.routing.Decision;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.state.RecordSetEntry;
import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.edge.state.WireIndex;
import io.healthmesh.edge.state.Zone;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSInput;
import org.xbill.DNS.Name;
import org.xbill.DNS.Type;

/**
 * The common query answered without building dnsjava messages (docs/architecture.md, "DNS edge"):
 * one A or AAAA question, class IN, no options beyond a plain EDNS0 OPT, for a record set that
 * exists. Reads the header and question in place, asks the engine, and writes the reply from the
 * answers encoded when the snapshot was built. Anything else returns null, and the full path
 * answers; the replies of both paths are byte for byte the same (FastPathTest).
 */
final class FastPath {
  private static final int HEADER = 12;
  private static final int TYPE_OPT = 41;
  private static final byte[][] NO_SIGNATURES = new byte[0][];

  private FastPath() {}

  /** @return the reply, or null when the full path must answer */
  static byte[] reply(byte[] q, InetAddress client, boolean tcp, Snapshot snapshot, RoutingEngine engine, String region,
      RandomGenerator random, Responder.DecisionListener decisions, OnlineSigning signing) {
    if (q.length < HEADER + 5 || (q[2] & 0xF8) != 0 || (q[3] & 0x7F) != 0 || u16(q, 4) != 1 || u16(q, 6) != 0
        || u16(q, 8) != 0 || u16(q, 10) > 1 || !snapshot.ready()) {
      return null; // a response, another opcode, Z bits, not one question, or extra sections
    }
    int end = nameEnd(q, HEADER);
    if (end < 0 || end + 4 > q.length) {
      return null;
    }
    int qtype = u16(q, end);
    if (qtype != Type.A && qtype != Type.AAAA || u16(q, end + 2) != DClass.IN) {
      return null;
    }
    int questionEnd = end + 4;
    int payload = 512;
    boolean edns = u16(q, 10) == 1;
    boolean dnssecOk = false;
    if (edns) {
      // Plain OPT: root owner, type 41, no extended rcode, version 0, no options.
      int o = questionEnd;
      if (o + 11 != q.length || q[o] != 0 || u16(q, o + 1) != TYPE_OPT || q[o + 5] != 0 || q[o + 6] != 0
          || u16(q, o + 9) != 0) {
        return null;
      }
      payload = Math.max(512, Math.min(u16(q, o + 3), Responder.EDNS_PAYLOAD));
      dnssecOk = (q[o + 7] & 0x80) != 0;
    } else if (questionEnd != q.length) {
      return null;
    }
    WireIndex.Owner owner = snapshot.wire().find(q, HEADER, end);
    RecordSetEntry entry = owner == null ? null : owner.of(qtype);
    if (entry == null || entry.dryRun() != null || !owner.zone().allows(client)) {
      return null; // a dry run beside it is decided on the full path (R-OP-5)
    }
    ZoneSigner signer = null;
    if (dnssecOk && signing != null) {
      Zone zone = snapshot.zoneFor(owner.name());
      if (zone != null && OnlineSigning.signs(zone) && (signer = signing.signer(zone.origin())) == null) {
        return null; // no keys: the full path says so (R-DNSSEC-3)
      }
    }
    Decision decision = engine.answer(entry.plan(), region, random);
    List<String> answer = decision.answer();
    if (answer.isEmpty()) {
      return null; // NODATA (R-OP-1) carries the zone's SOA: the full path decides and answers it
    }
    byte[][] sigs = NO_SIGNATURES;
    if (signer != null) {
      List<byte[]> tails = new ArrayList<>(answer.size());
      for (String rrdata : answer) {
        tails.add(entry.wire().get(rrdata));
      }
      sigs = signer.cachedTails(RRsetKey.ofTails(owner.name(), qtype, tails));
      if (sigs == null) {
        return null; // an RRset never signed: the full path signs it once, for every later answer
      }
    }
    decisions.decided(owner.name(), qtype, region, null, entry, decision);
    int size = questionEnd;
    for (String rrdata : answer) {
      size += 2 + entry.wire().get(rrdata).length;
    }
    for (byte[] sig : sigs) {
      size += 2 + sig.length;
    }
    size += edns ? 11 : 0;
    if (size > (tcp ? 65535 : payload)) {
      return null; // the full path truncates
    }
    byte[] r = new byte[size];
    System.arraycopy(q, 0, r, 0, questionEnd);
    r[2] = (byte) (0x84 | (q[2] & 0x01)); // QR, AA, opcode QUERY, RD as asked
    r[3] = 0; // RA off, rcode NOERROR
    int records = answer.size() + sigs.length;
    r[6] = (byte) (records >>> 8);
    r[7] = (byte) records;
    r[10] = 0;
    r[11] = (byte) (edns ? 1 : 0);
    int at = questionEnd;
    for (String rrdata : answer) {
      r[at++] = (byte) 0xC0; // the owner is the question's name, at offset 12
      r[at++] = HEADER;
      byte[] tail = entry.wire().get(rrdata);
      System.arraycopy(tail, 0, r, at, tail.length);
      at += tail.length;
    }
    for (byte[] sig : sigs) { // R-DNSSEC-1: the RRset's signatures, right after it
      r[at++] = (byte) 0xC0;
      r[at++] = HEADER;
      System.arraycopy(sig, 0, r, at, sig.length);
      at += sig.length;
    }
    if (edns) {
      r[at] = 0;
      r[at + 1] = 0;
      r[at + 2] = TYPE_OPT;
      r[at + 3] = (byte) (Responder.EDNS_PAYLOAD >>> 8);
      r[at + 4] = (byte) Responder.EDNS_PAYLOAD;
      r[at + 7] = (byte) (dnssecOk ? 0x80 : 0); // RFC 3225 3: DO copied
      // extended rcode, version, the other flags and rdata length stay 0
    }
    return r;
  }

  /** The question's name, when it is one uncompressed name after a whole header; else null. */
  static Name questionName(byte[] q) {
    if (q.length < HEADER + 5 || nameEnd(q, HEADER) < 0) {
      return null;
    }
    try {
      DNSInput in = new DNSInput(q);
      in.jump(HEADER);
      return new Name(in);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Offset just after an uncompressed name starting at {@code at}, or -1. */
  private static int nameEnd(byte[] q, int at) {
    int total = 0;
    while (at < q.length) {
      int len = q[at] & 0xFF;
      if (len == 0) {
        return at + 1;
      }
      if (len > 63 || (total += len + 1) > 254) {
        return -1; // a compression pointer or an over-long name: let the full path judge it
      }
      at += len + 1;
    }
    return -1;
  }

  private static int u16(byte[] b, int at) {
    return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
  }
}
