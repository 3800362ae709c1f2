package io.healthmesh.edge.dnssec;

import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.xbill.DNS.Name;

/**
 * A zone-signing key rollover by pre-publication (RFC 6781 4.1.1.1), written as key timing
 * (R-DNSSEC-3): the successor is published now and signs from {@code now + prepublish}, when the
 * keys it replaces stop signing; those stay published for {@code retire} more, until no resolver
 * holds an RRset they signed. Edges follow the timing from the key files alone, so every edge of the
 * zone switches at the same instants and no step breaks validation.
 */
public final class ZskRollover {
  private ZskRollover() {}

  /**
   * @param keys the zone's keys as they are
   * @param prepublish at least the DNSKEY TTL (plus the time to copy the files to every edge), so
   *     resolvers see the successor's key before its first signature
   * @param retire at least the largest TTL in the zone, so no cached RRset signed by the old key
   *     outlives it
   * @return the keys whose files change: the successor first, then each key it replaces, retired
   */
  public static List<ZoneKey> plan(Name zone, List<ZoneKey> keys, Instant now, Duration prepublish, Duration retire)
      throws GeneralSecurityException {
    List<ZoneKey> replaced = keys.stream().filter(k -> !k.ksk() && k.timing().active(now)
        && k.timing().inactive() == null).toList();
    if (replaced.isEmpty()) {
      throw new GeneralSecurityException("zone " + zone + " has no active zone-signing key without a retirement"
          + " date to roll over (see healthctl dnssec keys)");
    }
    ZoneKey model = replaced.get(0);
    Instant switchAt = now.plus(prepublish);
    List<ZoneKey> changed = new ArrayList<>();
    changed.add(ZoneKey.generate(zone, model.algorithm(), false, model.dnskey().getTTL(),
        new KeyTiming(now, now, switchAt, null, null)));
    for (ZoneKey old : replaced) {
      KeyTiming t = old.timing();
      changed.add(old.withTiming(new KeyTiming(t.created(), t.publish(), t.activate(), switchAt,
          switchAt.plus(retire))));
    }
    return changed;
  }

  /** The state of a key at {@code now}, as {@code healthctl dnssec keys} shows it. */
  public static String state(ZoneKey key, Instant now) {
    KeyTiming t = key.timing();
    if (t.active(now)) {
      return "active";
    }
    if (t.published(now)) {
      return t.activate() != null && now.isBefore(t.activate()) ? "published" : "retired";
    }
    return t.delete() != null && !now.isBefore(t.delete()) ? "deleted" : "not yet published";
  }
}
