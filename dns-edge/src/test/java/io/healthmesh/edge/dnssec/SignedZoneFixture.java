package io.healthmesh.edge.dnssec;

import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ZoneVisibility;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;

/** Keys for a test zone, written as BIND key files, and the signing that reads them. */
public final class SignedZoneFixture {
  private SignedZoneFixture() {}

  /** The zone signed, with R-DNS-3 lifted so that the fixtures' multi-address items stay valid. */
  public static ManagedZone signed(ManagedZone zone) {
    return ManagedZone.newBuilder(zone).setDnssecEnabled(true).setDnssecAnySubset(true).build();
  }

  public static ManagedZone privateZone(String name, String dnsName) {
    return ManagedZone.newBuilder().setName(name).setDnsName(dnsName).setVisibility(ZoneVisibility.PRIVATE)
        .setNetworks(List.of("10.0.0.0/8", "127.0.0.0/8", "::1/128")).build();
  }

  /** A KSK and a ZSK of {@code algorithm}, active from an hour ago, written into {@code dir}. */
  public static List<ZoneKey> keys(Path dir, String zone, int algorithm) throws Exception {
    Instant since = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).minusSeconds(3600);
    return BindKeyFiles.writeNewPair(dir, Name.fromString(zone), algorithm, 3600, KeyTiming.from(since));
  }

  public static List<ZoneKey> keys(Path dir, String zone) throws Exception {
    return keys(dir, zone, DNSSEC.Algorithm.ECDSAP256SHA256);
  }

  public static OnlineSigning signing(Path dir, Clock clock) {
    return OnlineSigning.start(SigningSettings.NONE.withKeys(dir), clock, new SimpleMeterRegistry());
  }

  static ZoneKey generate(String zone, boolean ksk, KeyTiming timing) throws GeneralSecurityException {
    try {
      return ZoneKey.generate(Name.fromString(zone), DNSSEC.Algorithm.ECDSAP256SHA256, ksk, 3600, timing);
    } catch (org.xbill.DNS.TextParseException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
