package io.healthmesh.edge.dnssec;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSKEYRecord;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * Signs one zone's RRsets with the keys active now (R-DNSSEC-1, R-DNSSEC-3): the DNSKEY set with
 * the key-signing keys, every other RRset with the zone-signing keys (or, where a zone has none,
 * with its key-signing keys as combined signing keys). Signatures come from the cache when that
 * RRset was signed before; the cache lives as long as the set of signing keys does.
 */
public final class ZoneSigner {
  private final Name origin;
  private final List<ZoneKey> zsks;
  private final List<ZoneKey> ksks;
  private final List<ZoneKey> active;
  private final List<ZoneKey> published;
  private final List<Record> dnskeys;
  private final SignatureCache cache;
  private final SigningSettings settings;
  private final Clock clock;
  private final Runnable signed;

  /**
   * @param published every key of the zone in the DNSKEY set now
   * @param active the keys that sign now
   * @param signed told of each signature made, for the metric
   */
  ZoneSigner(Name origin, List<ZoneKey> published, List<ZoneKey> active, SignatureCache cache,
      SigningSettings settings, Clock clock, Runnable signed) {
    this.origin = origin;
    this.active = List.copyOf(active);
    this.published = List.copyOf(published);
    List<ZoneKey> k = active.stream().filter(ZoneKey::ksk).toList();
    List<ZoneKey> z = active.stream().filter(key -> !key.ksk()).toList();
    this.ksks = k;
    this.zsks = z.isEmpty() ? k : z;
    this.dnskeys = published.stream().<Record>map(ZoneKey::dnskey).toList();
    this.cache = cache;
    this.settings = settings;
    this.clock = clock;
    this.signed = signed;
  }

  public Name origin() {
    return origin;
  }

  /** The DNSKEY RRset at the apex: every published key. */
  public List<Record> dnskeys() {
    return dnskeys;
  }

  /** Key tags of the DNSKEY set, in order, as the edge reports them. */
  public List<Integer> keyTags() {
    return dnskeys.stream().map(r -> ((DNSKEYRecord) r).getFootprint()).sorted().toList();
  }

  /** Whether it can sign every RRset: a key-signing key and a zone-signing (or combined) key, active. */
  boolean complete() {
    return !ksks.isEmpty() && !zsks.isEmpty();
  }

  /** The signatures of one RRset (records of one owner, type and TTL), from the cache or made now. */
  public List<RRSIGRecord> sign(List<Record> rrset) {
    RRsetKey key = RRsetKey.of(rrset);
    long now = clock.millis();
    SignatureCache.Signed hit = cache.get(key, now);
    if (hit != null) {
      return hit.sigs;
    }
    return make(key, rrset, now).sigs;
  }

  /** The fast path's signatures, after the owner's pointer, or null when not signed yet. */
  public byte[][] cachedTails(RRsetKey key) {
    SignatureCache.Signed hit = cache.get(key, clock.millis());
    return hit == null ? null : hit.tails;
  }

  /** Signs again what the cache holds that is due, before it expires; on the sweeper's thread. */
  void refresh(List<RRsetKey> due) {
    for (RRsetKey key : due) {
      List<Record> records = new ArrayList<>(key.rdatas().size());
      for (ByteBuffer rdata : key.rdatas()) {
        byte[] bytes = new byte[rdata.remaining()];
        rdata.duplicate().get(bytes);
        records.add(Record.newRecord(key.owner(), key.type(), DClass.IN, key.ttl(), bytes));
      }
      make(key, records, clock.millis());
    }
  }

  List<ZoneKey> activeKeys() {
    return active;
  }

  List<ZoneKey> publishedKeys() {
    return published;
  }

  SignatureCache cache() {
    return cache;
  }

  private SignatureCache.Signed make(RRsetKey key, List<Record> rrset, long now) {
    List<ZoneKey> signers = rrset.get(0).getType() == Type.DNSKEY ? ksks : zsks;
    RRset set = new RRset();
    rrset.forEach(set::addRR);
    long validity = settings.validity().toMillis();
    long jitter = ThreadLocalRandom.current().nextLong(Math.max(1, validity / 10));
    Instant inception = Instant.ofEpochMilli(now).minus(settings.inceptionOffset());
    Instant expiration = Instant.ofEpochMilli(now + validity - jitter);
    List<RRSIGRecord> sigs = new ArrayList<>(signers.size());
    for (ZoneKey k : signers) {
      try {
        sigs.add(DNSSEC.sign(set, k.dnskey(), k.privateKey(), inception, expiration, SigningProvider.NAME));
      } catch (DNSSEC.DNSSECException e) {
        throw new IllegalStateException("cannot sign with " + k + ": " + e.getMessage(), e);
      }
      signed.run();
    }
    SignatureCache.Signed made = new SignatureCache.Signed(sigs,
        expiration.toEpochMilli() - settings.refreshBefore().toMillis(), expiration.toEpochMilli(), now);
    cache.put(key, made);
    if (key.type() == Type.SOA) {
      // The serial moves with every snapshot that changes the zone: the SOA signed before is never asked again.
      RRsetKey before = cache.lastSoa.getAndSet(key);
      if (before != null && !before.equals(key)) {
        cache.remove(before);
      }
    }
    return made;
  }
}
