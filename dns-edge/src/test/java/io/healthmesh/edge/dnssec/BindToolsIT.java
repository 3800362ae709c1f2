package io.healthmesh.edge.dnssec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;

/** Our key files in BIND's own tools, and BIND's in ours (Debian bind9-utils) (R-DNSSEC-3). */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BindToolsIT {
  @TempDir
  Path dir;

  private static String run(Path dir, String... command) throws Exception {
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command) + ":\n" + out).isZero();
    return out;
  }

  @Test
  void ourKeys_signAZoneWithDnssecSignzone_thatDnssecVerifyAccepts_R_DNSSEC_3() throws Exception {
    for (int algorithm : new int[] {DNSSEC.Algorithm.ECDSAP256SHA256, DNSSEC.Algorithm.ED25519}) {
      Path keys = Files.createDirectories(dir.resolve("keys-" + algorithm));
      List<ZoneKey> made = SignedZoneFixture.keys(keys, "example.com.", algorithm);
      Files.writeString(keys.resolve("example.com.zone"), """
          $TTL 300
          example.com. IN SOA ns1.example.com. hostmaster.example.com. 1 3600 600 86400 300
          example.com. IN NS ns1.example.com.
          ns1.example.com. IN A 192.0.2.53
          www.example.com. IN A 192.0.2.1
          """);
      run(keys, "dnssec-signzone", "-K", keys.toString(), "-S", "-o", "example.com.", "-f", "signed.zone",
          "example.com.zone");
      run(keys, "dnssec-verify", "-o", "example.com.", "signed.zone");
      ZoneKey ksk = made.get(0);
      String ds = run(keys, "dnssec-dsfromkey", "-2", keys.resolve(ksk.file() + ".key").toString());
      assertThat(ds.strip().replaceAll("\\s+", " ")).isEqualTo(
          ksk.ds(3600).toString().replaceAll("\\s+", " ").replace(" 3600 IN", " IN"));
    }
  }

  @Test
  void keysOfDnssecKeygen_areReadAndSign_R_DNSSEC_3() throws Exception {
    List<String> made = new ArrayList<>();
    made.add(run(dir, "dnssec-keygen", "-K", dir.toString(), "-a", "ECDSAP256SHA256", "-f", "KSK", "example.com").strip());
    made.add(run(dir, "dnssec-keygen", "-K", dir.toString(), "-a", "ED25519", "-L", "600", "example.com").strip());
    List<ZoneKey> keys = BindKeyFiles.readZone(dir, Name.fromString("example.com."));
    assertThat(keys).extracting(ZoneKey::file).containsExactlyInAnyOrderElementsOf(made);
    assertThat(keys).filteredOn(ZoneKey::ksk).singleElement().extracting(ZoneKey::algorithm)
        .isEqualTo(DNSSEC.Algorithm.ECDSAP256SHA256);
    assertThat(keys).filteredOn(k -> !k.ksk()).singleElement().satisfies(k ->
        assertThat(k.dnskey().getTTL()).isEqualTo(600));
  }
}
