package io.healthmesh.edge.dnssec;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

/**
 * The exact RRset a signature covers (R-DNSSEC-4): owner, type, TTL and the set of canonical
 * rdatas, in canonical order. The fast path builds it from the wire it answers with, the full
 * path from records; both give equal keys for the same RRset.
 */
public record RRsetKey(Name owner, int type, long ttl, List<ByteBuffer> rdatas) {

  /** From records of one owner and type, as the full path answers them. */
  public static RRsetKey of(List<Record> rrset) {
    Record first = rrset.get(0);
    List<ByteBuffer> rdatas = new ArrayList<>(rrset.size());
    for (Record r : rrset) {
      rdatas.add(ByteBuffer.wrap(r.rdataToWireCanonical()));
    }
    Collections.sort(rdatas);
    return new RRsetKey(first.getName(), first.getType(), first.getTTL(), rdatas);
  }

  /**
   * From answer tails as the fast path writes them after the owner's pointer: type, class, TTL,
   * length, then the canonical rdata.
   */
  public static RRsetKey ofTails(Name owner, int type, List<byte[]> tails) {
    List<ByteBuffer> rdatas = new ArrayList<>(tails.size());
    long ttl = 0;
    for (byte[] tail : tails) {
      ttl = ByteBuffer.wrap(tail, 4, 4).getInt() & 0xFFFFFFFFL;
      rdatas.add(ByteBuffer.wrap(tail, 10, tail.length - 10).slice());
    }
    Collections.sort(rdatas);
    return new RRsetKey(owner, type, ttl, rdatas);
  }

  /** Bytes this key keeps alive, roughly, for the cache's memory figure. */
  long weight() {
    long bytes = 64;
    for (ByteBuffer b : rdatas) {
      bytes += 48 + b.remaining();
    }
    return bytes;
  }
}
