package io.healthmesh.edge.dnssec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.RRset;

/** BIND key files, read and written (R-DNSSEC-3). */
class BindKeyFilesTest {
  @TempDir
  Path dir;

  @Test
  void keysWrittenAreReadBack_andSign_R_DNSSEC_3() throws Exception {
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    for (int algorithm : new int[] {DNSSEC.Algorithm.ECDSAP256SHA256, DNSSEC.Algorithm.ED25519}) {
      KeyTiming timing = new KeyTiming(now, now, now.plusSeconds(60), now.plusSeconds(3600), now.plusSeconds(7200));
      ZoneKey key = ZoneKey.generate(Name.fromString("example.com."), algorithm, false, 600, timing);
      BindKeyFiles.write(key, dir);
      ZoneKey read = BindKeyFiles.read(dir.resolve(key.file() + ".key"));
      assertThat(read).isEqualTo(key);
      assertThat(read.timing()).isEqualTo(timing);
      assertThat(read.dnskey().getTTL()).isEqualTo(600);
      assertThat(key.file()).matches("Kexample\\.com\\.\\+0" + algorithm + "\\+\\d{5}");
      RRset rrset = new RRset(new ARecord(Name.fromString("www.example.com."), DClass.IN, 60,
          java.net.InetAddress.getByName("192.0.2.1")));
      RRSIGRecord sig = DNSSEC.sign(rrset, read.dnskey(), read.privateKey(), now, now.plusSeconds(60));
      DNSSEC.verify(rrset, sig, key.dnskey(), now.plusSeconds(1));
    }
    assertThat(Files.getPosixFilePermissions(Files.list(dir).filter(p -> p.toString().endsWith(".private"))
        .findFirst().orElseThrow())).hasSize(2);
  }

  @Test
  void aKeyOfDnssecKeygen_isRead_R_DNSSEC_3() throws Exception {
    // As dnssec-keygen -a ECDSAP256SHA256 -f KSK example.com (BIND 9.18) wrote it.
    Files.writeString(dir.resolve("Kexample.com.+013+51523.key"), """
        ; This is a key-signing key, keyid 51523, for example.com.
        ; Created: 20261202132307 (Wed Dec  2 13:23:07 2026)
        ; Publish: 20261202132307 (Wed Dec  2 13:23:07 2026)
        ; Activate: 20261202132307 (Wed Dec  2 13:23:07 2026)
        example.com. IN DNSKEY 257 3 13 5C9/3SuYyBs1w+9Uoxa2FdBkXZXsZGcxC6ITD1fzkp0cDGuiCx2tQelj 4eAWGSyFZcxox5JopsklVvFpQxW00Q==
        """);
    Files.writeString(dir.resolve("Kexample.com.+013+51523.private"), """
        Private-key-format: v1.3
        Algorithm: 13 (ECDSAP256SHA256)
        PrivateKey: W4DWB7Zovl6Omd98Da8TQglSPUWHyzP+y7RkD4VZRhM=
        Created: 20261202132307
        Publish: 20261202132307
        Activate: 20261202132307
        """);
    ZoneKey key = BindKeyFiles.read(dir.resolve("Kexample.com.+013+51523.key"));
    assertThat(key.tag()).isEqualTo(51523);
    assertThat(key.ksk()).isTrue();
    assertThat(key.dnskey().getTTL()).isEqualTo(ZoneKey.DEFAULT_TTL);
    assertThat(key.timing().activate()).isEqualTo(Instant.parse("2026-12-02T13:23:07Z"));
    RRset rrset = new RRset(key.dnskey());
    Instant at = Instant.parse("2026-12-02T14:00:00Z");
    DNSSEC.verify(rrset, DNSSEC.sign(rrset, key.dnskey(), key.privateKey(), at, at.plusSeconds(60)), key.dnskey(),
        at.plusSeconds(1));
  }

  @Test
  void aDirectoryWithABrokenFile_reportsIt_andKeepsTheOthers_R_DNSSEC_3() throws Exception {
    List<ZoneKey> keys = SignedZoneFixture.keys(dir, "example.com.");
    Files.writeString(dir.resolve("Kbroken.+013+00001.key"), "broken. IN DNSKEY 256 3 13 AAAA\n");
    KeyDirectory read = KeyDirectory.read(dir);
    assertThat(read.keys().get(Name.fromString("example.com."))).containsExactlyInAnyOrderElementsOf(keys);
    assertThat(read.problems()).singleElement().asString().startsWith("Kbroken.+013+00001.key");
    assertThat(read.changed(dir)).isFalse();
    Files.delete(dir.resolve("Kbroken.+013+00001.key"));
    assertThat(read.changed(dir)).isTrue();
    assertThatThrownBy(() -> BindKeyFiles.read(dir.resolve("nothing.key"))).isInstanceOf(IOException.class);
  }
}
