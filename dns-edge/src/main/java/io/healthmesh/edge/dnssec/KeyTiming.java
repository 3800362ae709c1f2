package io.healthmesh.edge.dnssec;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * When a key enters and leaves the zone, as BIND's key files say (R-DNSSEC-3): published in the
 * DNSKEY set from {@code publish} until {@code delete}, signing from {@code activate} until
 * {@code inactive}. A missing time never comes (an absent publish or activate: always).
 */
public record KeyTiming(Instant created, Instant publish, Instant activate, Instant inactive, Instant delete) {
  static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyyMMddHHmmss").withZone(ZoneOffset.UTC);

  /** A key published and active from {@code now} on, as {@code dnssec-keygen} makes one. */
  public static KeyTiming from(Instant now) {
    return new KeyTiming(now, now, now, null, null);
  }

  public boolean published(Instant now) {
    return reached(publish, now, true) && !reached(delete, now, false);
  }

  public boolean active(Instant now) {
    return published(now) && reached(activate, now, true) && !reached(inactive, now, false);
  }

  /** The next time after {@code now} at which this key's state changes, or null. */
  public Instant nextChange(Instant now) {
    Instant next = null;
    for (Instant t : new Instant[] {publish, activate, inactive, delete}) {
      if (t != null && t.isAfter(now) && (next == null || t.isBefore(next))) {
        next = t;
      }
    }
    return next;
  }

  private static boolean reached(Instant t, Instant now, boolean ifAbsent) {
    return t == null ? ifAbsent : !now.isBefore(t);
  }

  static Instant parse(String yyyymmddhhmmss) {
    return FORMAT.parse(yyyymmddhhmmss.trim(), Instant::from);
  }

  static String format(Instant t) {
    return FORMAT.format(t);
  }
}
