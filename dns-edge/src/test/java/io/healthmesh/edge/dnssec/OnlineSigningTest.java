package io.healthmesh.edge.dnssec;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.Record;

/** The signature cache and the keys' timing, on a clock the test moves (R-DNSSEC-3, R-DNSSEC-4). */
class OnlineSigningTest {
  private static final Name ZONE = Name.fromConstantString("example.com.");

  @TempDir
  Path dir;

  private final MovingClock clock = new MovingClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private OnlineSigning signing;

  @AfterEach
  void close() {
    signing.close();
  }

  private OnlineSigning start() {
    signing = OnlineSigning.start(SigningSettings.NONE.withKeys(dir).withSweep(Duration.ofHours(1)), clock, meters);
    return signing;
  }

  /** A KSK and a ZSK of example.com., active since a minute ago. */
  private void writeActiveKeys() throws Exception {
    KeyTiming since = KeyTiming.from(clock.instant().minusSeconds(60));
    BindKeyFiles.write(SignedZoneFixture.generate("example.com.", true, since), dir);
    BindKeyFiles.write(SignedZoneFixture.generate("example.com.", false, since), dir);
  }

  private double signatures() {
    return meters.counter("healthmesh.edge.dnssec.signatures").count();
  }

  private static List<Record> a(String... addresses) throws Exception {
    List<Record> records = new java.util.ArrayList<>();
    for (String address : addresses) {
      records.add(new ARecord(Name.fromString("www.example.com."), DClass.IN, 60, InetAddress.getByName(address)));
    }
    return records;
  }

  @Test
  void anRRsetSeenBefore_costsNoSigning_inAnyOrder_R_DNSSEC_4() throws Exception {
    writeActiveKeys();
    ZoneSigner signer = start().signer(ZONE);
    List<RRSIGRecord> first = signer.sign(a("192.0.2.1", "192.0.2.2"));
    assertThat(signatures()).isEqualTo(1);
    assertThat(signer.sign(a("192.0.2.2", "192.0.2.1"))).isEqualTo(first);
    assertThat(signer.sign(a("192.0.2.1"))).isNotEqualTo(first);
    assertThat(signer.sign(a("192.0.2.1", "192.0.2.2"))).isEqualTo(first);
    assertThat(signatures()).as("one per distinct subset").isEqualTo(2);
    assertThat(meters.find("healthmesh.edge.dnssec.cache.lookups").tag("result", "hit").functionCounter().count())
        .isEqualTo(2);
    RRSIGRecord sig = first.get(0);
    Duration validity = Duration.between(clock.instant(), sig.getExpire());
    assertThat(validity).isBetween(Duration.ofDays(7).minus(Duration.ofHours(17)), Duration.ofDays(7));
    assertThat(sig.getTimeSigned()).isEqualTo(clock.instant().minus(Duration.ofHours(1)));
  }

  @Test
  void aSignatureNearItsEnd_isMadeAgainInTheBackground_andAnExpiredOneNeverServed_R_DNSSEC_4() throws Exception {
    writeActiveKeys();
    start();
    RRSIGRecord first = signing.signer(ZONE).sign(a("192.0.2.1")).get(0);
    clock.move(Duration.ofDays(6)); // less than the two days of dns.dnssec.signature.refresh.hours left
    signing.signer(ZONE).sign(a("192.0.2.1")); // used, so the sweep keeps it
    signing.sweep();
    RRSIGRecord refreshed = signing.signer(ZONE).sign(a("192.0.2.1")).get(0);
    assertThat(refreshed.getExpire()).isAfter(first.getExpire().plus(Duration.ofDays(5)));
    assertThat(signatures()).isEqualTo(2);
    assertThat(meters.find("healthmesh.edge.dnssec.cache.lookups").tag("result", "miss").functionCounter().count())
        .as("refreshed before any answer missed it").isEqualTo(1);
    clock.move(Duration.ofDays(8)); // past its expiry, with no sweep in between
    assertThat(signing.signer(ZONE).sign(a("192.0.2.1")).get(0).getExpire()).isAfter(clock.instant());
  }

  @Test
  void aNewSoaSerial_replacesTheOldSoasSignatures_soChurnDoesNotFillTheCache_R_DNSSEC_4() throws Exception {
    writeActiveKeys();
    ZoneSigner signer = start().signer(ZONE);
    for (long serial = 1; serial <= 50; serial++) {
      signer.sign(List.of(new org.xbill.DNS.SOARecord(ZONE, DClass.IN, 300, Name.fromString("ns1.example.com."),
          Name.fromString("hostmaster.example.com."), serial, 3600, 600, 86400, 300)));
    }
    signer.sign(a("192.0.2.1"));
    assertThat(meters.get("healthmesh.edge.dnssec.cache.entries").gauge().value()).isEqualTo(2);
  }

  @Test
  void anUnreadableKeyFile_isAWarning_notAProblemWhileEveryZoneHasItsKeys_R_DNSSEC_3() throws Exception {
    writeActiveKeys();
    java.nio.file.Files.writeString(dir.resolve("Kexample.com.+013+00001.key"), "example.com. IN DNSKEY 256 3 13 AAAA\n");
    start();
    assertThat(signing.signer(ZONE)).isNotNull();
    assertThat(signing.keyFileProblems()).singleElement().asString().startsWith("Kexample.com.+013+00001.key");
    assertThat(meters.get("healthmesh.edge.dnssec.key.problems").gauge().value()).isEqualTo(1);
  }

  @Test
  void theKeysInForce_followTheirTiming_toTheSecond_R_DNSSEC_3() throws Exception {
    Instant now = clock.instant();
    ZoneKey ksk = SignedZoneFixture.generate("example.com.", true, KeyTiming.from(now.minusSeconds(60)));
    ZoneKey old = SignedZoneFixture.generate("example.com.", false, KeyTiming.from(now.minusSeconds(60)));
    BindKeyFiles.write(ksk, dir);
    BindKeyFiles.write(old, dir);
    List<ZoneKey> rolled = ZskRollover.plan(ZONE, List.of(ksk, old), now, Duration.ofSeconds(10), Duration.ofSeconds(20));
    for (ZoneKey k : rolled) {
      BindKeyFiles.write(k, dir);
    }
    ZoneKey next = rolled.get(0);
    start();
    assertThat(signing.signer(ZONE).keyTags()).containsExactlyInAnyOrder(ksk.tag(), old.tag(), next.tag());
    assertThat(signing.signer(ZONE).sign(a("192.0.2.1")).get(0).getFootprint()).isEqualTo(old.tag());
    clock.move(Duration.ofSeconds(10));
    assertThat(signing.signer(ZONE).sign(a("192.0.2.1")).get(0).getFootprint()).as("the successor signs")
        .isEqualTo(next.tag());
    assertThat(ZskRollover.state(rolled.get(1), clock.instant())).isEqualTo("retired");
    clock.move(Duration.ofSeconds(20));
    assertThat(signing.signer(ZONE).keyTags()).containsExactlyInAnyOrder(ksk.tag(), next.tag());
    // Without an active zone-signing key at all, the zone cannot be signed: not a half-signed zone.
    clock.move(Duration.ofDays(-1));
    assertThat(signing.signer(ZONE)).isNull();
  }

  /** A clock the test moves. */
  static final class MovingClock extends Clock {
    private volatile Instant now;

    MovingClock(Instant now) {
      this.now = now;
    }

    void move(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
