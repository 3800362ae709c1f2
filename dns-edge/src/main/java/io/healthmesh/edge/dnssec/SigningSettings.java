package io.healthmesh.edge.dnssec;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How an edge signs (R-DNSSEC-3, R-DNSSEC-4); keys {@code dns.dnssec.*} in docs/configuration.md.
 *
 * @param keysDir where the zones' BIND key files are; null when this edge has none
 * @param validity how long a signature is valid from when it is made (less up to a tenth, jitter)
 * @param refreshBefore a cached signature is made again when less than this is left of it
 * @param inceptionOffset how far back a signature's inception is set, for clients whose clocks lag
 * @param idle a cached signature no answer used for this long is dropped
 * @param maxEntries the cache's bound, in RRsets
 * @param sweep how often the cache is refreshed and swept, and the key directory read again
 */
public record SigningSettings(Path keysDir, Duration validity, Duration refreshBefore, Duration inceptionOffset,
    Duration idle, int maxEntries, Duration sweep) {

  public static final SigningSettings NONE = new SigningSettings(null, Duration.ofDays(7), Duration.ofDays(2),
      Duration.ofHours(1), Duration.ofHours(1), 250_000, Duration.ofSeconds(5));

  public SigningSettings withKeys(Path dir) {
    return new SigningSettings(dir, validity, refreshBefore, inceptionOffset, idle, maxEntries, sweep);
  }

  public SigningSettings withSweep(Duration every) {
    return new SigningSettings(keysDir, validity, refreshBefore, inceptionOffset, idle, maxEntries, every);
  }
}
