package io.healthmesh.bench;

import io.healthmesh.edge.dnssec.BindKeyFiles;
import io.healthmesh.edge.dnssec.KeyTiming;
import io.healthmesh.edge.dnssec.ZoneKey;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;

/** A key-signing and a zone-signing key (ECDSA P-256) for a benchmark's zone, as BIND key files. */
final class BenchKeys {
  private BenchKeys() {}

  static List<ZoneKey> write(Path dir, String zone) throws IOException {
    Instant since = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(3600);
    List<ZoneKey> keys = new ArrayList<>();
    try {
      for (boolean ksk : new boolean[] {true, false}) {
        ZoneKey k = ZoneKey.generate(Name.fromString(zone), DNSSEC.Algorithm.ECDSAP256SHA256, ksk, 3600,
            KeyTiming.from(since));
        BindKeyFiles.write(k, dir);
        keys.add(k);
      }
    } catch (GeneralSecurityException e) {
      throw new IOException(e);
    }
    return keys;
  }
}
