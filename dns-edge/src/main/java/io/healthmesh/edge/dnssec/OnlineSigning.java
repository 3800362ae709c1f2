package io.healthmesh.edge.dnssec;

import io.healthmesh.config.ZoneType;
import io.healthmesh.edge.state.Zone;
import io.healthmesh.observability.Periodic;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Name;

/**
 * The edge's signing (R-DNSSEC-1..4): the zones' keys from the key directory, one
 * {@link ZoneSigner} per zone for the keys active now, and a thread that reads the directory again
 * when it changes, follows the keys' timing, refreshes signatures before they expire and bounds the
 * cache. A signed zone this edge has no complete set of active keys for is a problem, which makes
 * the edge not ready (R-DNSSEC-3).
 */
public final class OnlineSigning implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OnlineSigning.class);
  private final SigningSettings settings;
  private final Clock clock;
  private final Counter signatures;
  private final Counter failures;
  private final Periodic sweeper;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private volatile KeyDirectory directory = KeyDirectory.EMPTY;
  private volatile Map<Name, ZoneSigner> signers = Map.of();
  private volatile long nextChangeMillis = Long.MAX_VALUE;
  private volatile long selectedAtMillis;

  private OnlineSigning(SigningSettings settings, Clock clock, MeterRegistry meters) {
    this.settings = settings;
    this.clock = clock;
    this.signatures = Counter.builder("healthmesh.edge.dnssec.signatures")
        .description("RRSIG records made, on the query path or in the background").register(meters);
    this.failures = Counter.builder("healthmesh.edge.dnssec.sweep.failures")
        .description("background passes (key reading, refresh) that failed; the last keys stay in force")
        .register(meters);
    FunctionCounter.builder("healthmesh.edge.dnssec.cache.lookups", hits, LongAdder::sum).tag("result", "hit")
        .description("signatures looked up in the cache by the RRset they cover").register(meters);
    FunctionCounter.builder("healthmesh.edge.dnssec.cache.lookups", misses, LongAdder::sum).tag("result", "miss")
        .description("signatures looked up in the cache by the RRset they cover").register(meters);
    Gauge.builder("healthmesh.edge.dnssec.cache.entries", this, s -> s.signers.values().stream()
        .mapToInt(z -> z.cache().size()).sum()).description("RRsets whose signatures are cached").register(meters);
    Gauge.builder("healthmesh.edge.dnssec.cache.bytes", this, s -> s.signers.values().stream()
        .mapToLong(z -> z.cache().bytes()).sum()).description("estimated heap the signature cache holds")
        .baseUnit("bytes").register(meters);
    Gauge.builder("healthmesh.edge.dnssec.key.problems", this, s -> s.directory.problems().size())
        .description("key files that could not be read").register(meters);
    reload();
    this.sweeper = settings.keysDir() == null ? null
        : Periodic.start("dnssec-sweeper", this::sweep, settings.sweep(), settings.sweep());
  }

  public static OnlineSigning start(SigningSettings settings, Clock clock, MeterRegistry meters) {
    return new OnlineSigning(settings, clock, meters);
  }

  /** The signer for the zone at {@code origin} with the keys active now, or null when it has none. */
  public ZoneSigner signer(Name origin) {
    long now = clock.millis();
    if (now >= nextChangeMillis || now < selectedAtMillis) { // a key's time came, or the clock was set back
      reselect();
    }
    ZoneSigner s = signers.get(origin);
    return s != null && s.complete() ? s : null;
  }

  /** Why the signed zones among {@code zones} cannot all be signed by this edge; empty when they can. */
  public List<String> problems(List<Zone> zones) {
    List<String> problems = new ArrayList<>();
    for (Zone zone : zones) {
      if (signs(zone) && signer(zone.origin()) == null) {
        problems.add("zone " + zone.origin() + " has DNSSEC on but this edge has no active key-signing and "
            + "zone-signing key for it" + (settings.keysDir() == null ? " (dns.dnssec.keys.dir is not set)"
            : " in " + settings.keysDir()) + " (R-DNSSEC-3)");
      }
    }
    return problems;
  }

  /** Key files that could not be read: a warning, as long as every signed zone has its active keys. */
  public List<String> keyFileProblems() {
    return directory.problems();
  }

  /** The key tags each signed zone's DNSKEY set holds at this edge, by zone. */
  public Map<String, List<Integer>> keyTags(List<Zone> zones) {
    Map<String, List<Integer>> tags = new TreeMap<>();
    for (Zone zone : zones) {
      if (signs(zone)) {
        ZoneSigner s = signer(zone.origin());
        tags.put(zone.origin().toString(), s == null ? List.of() : s.keyTags());
      }
    }
    return tags;
  }

  /** Whether answers of {@code zone} are signed: DNSSEC on, and a zone that answers itself. */
  public static boolean signs(Zone zone) {
    return zone.config().getDnssecEnabled() && zone.config().getZoneType() == ZoneType.STANDARD;
  }

  /** One background pass now: keys read again if changed, signatures refreshed, the cache bounded. */
  void sweep() {
    try {
      if (directory.changed(settings.keysDir())) {
        reload();
      }
      long now = clock.millis();
      for (ZoneSigner s : signers.values()) {
        s.refresh(s.cache().sweep(now, now - settings.idle().toMillis(), settings.maxEntries()));
      }
    } catch (RuntimeException e) {
      failures.increment();
    }
  }

  private synchronized void reload() {
    directory = settings.keysDir() == null ? KeyDirectory.EMPTY : KeyDirectory.read(settings.keysDir());
    directory.problems().forEach(p -> LOG.warn("DNSSEC key file left out: {}", p));
    reselect();
  }

  /**
   * The signers for the keys' state now: a zone whose keys are as before keeps its signer, and one
   * whose signing keys did not change keeps its cache.
   */
  private synchronized void reselect() {
    Instant now = clock.instant();
    selectedAtMillis = now.toEpochMilli();
    Map<Name, ZoneSigner> next = new HashMap<>();
    Instant change = null;
    for (Map.Entry<Name, List<ZoneKey>> zone : directory.keys().entrySet()) {
      List<ZoneKey> published = zone.getValue().stream().filter(k -> k.timing().published(now)).toList();
      List<ZoneKey> active = published.stream().filter(k -> k.timing().active(now)).toList();
      ZoneSigner before = signers.get(zone.getKey());
      boolean sameSigning = before != null && sameKeys(before.activeKeys(), active);
      next.put(zone.getKey(), sameSigning && sameKeys(before.publishedKeys(), published) ? before
          : new ZoneSigner(zone.getKey(), published, active, sameSigning ? before.cache()
              : new SignatureCache(hits, misses), settings, clock, signatures::increment));
      for (ZoneKey k : zone.getValue()) {
        Instant t = k.timing().nextChange(now);
        change = t == null || change != null && change.isBefore(t) ? change : t;
      }
    }
    signers = Map.copyOf(next);
    nextChangeMillis = change == null ? Long.MAX_VALUE : change.toEpochMilli();
  }

  /** The same keys, whatever their timing says beyond now (a rollover rewrites the old key's file). */
  private static boolean sameKeys(List<ZoneKey> a, List<ZoneKey> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      ZoneKey x = a.get(i);
      ZoneKey y = b.get(i);
      if (!x.file().equals(y.file()) || !x.dnskey().equals(y.dnskey()) || !x.privateKey().equals(y.privateKey())) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    if (sweeper != null) {
      sweeper.close();
    }
  }
}
