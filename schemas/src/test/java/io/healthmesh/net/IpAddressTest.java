package io.healthmesh.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** R-DNSHC-1: one reading and one spelling of addresses for the CLI, the topology and the edge. */
class IpAddressTest {

  @Test
  void writesIpv6InItsCanonicalForm_whateverTheSpelling_R_DNSHC_1() {
    assertThat(IpAddress.canonical("FD00:113:0:0::11")).isEqualTo("fd00:113::11");
    assertThat(IpAddress.canonical("fd00:0113:0000:0000:0000:0000:0000:0011")).isEqualTo("fd00:113::11");
    assertThat(IpAddress.canonical("2001:db8:0:0:1:0:0:1")).isEqualTo("2001:db8::1:0:0:1"); // leftmost longest run
    assertThat(IpAddress.canonical("2001:db8:0:1:1:1:1:1")).isEqualTo("2001:db8:0:1:1:1:1:1"); // one zero group stays
    assertThat(IpAddress.canonical("::")).isEqualTo("::");
    assertThat(IpAddress.canonical("::1")).isEqualTo("::1");
    assertThat(IpAddress.canonical("1::")).isEqualTo("1::");
    assertThat(IpAddress.canonical("::ffff:10.0.0.1")).isEqualTo("::ffff:a00:1");
    assertThat(IpAddress.canonical("10.1.0.100")).isEqualTo("10.1.0.100");
  }

  @Test
  void rejectsWhatIsNotAnAddress_R_DNSHC_1() {
    for (String bad : new String[] {"::::", ":::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1::2::3", ":1:2:3:4:5:6:7",
        "1:2:3:4:5:6:7:", "12345::", "g::1", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1..2.3", "1.2.3.4::",
        "::1.2.3", "fe80::1%eth0", "", " 10.0.0.1", "example.com", "1:2:3:4:5:6:7:1.2.3.4"}) {
      assertThat(IpAddress.parse(bad)).as(bad).isNull();
    }
    assertThat(IpAddress.parse("1:2:3:4:5:6:1.2.3.4")).hasSize(16);
  }

  @Test
  void readsTheSameBytesAsTheJdk_forRandomAddresses() throws Exception {
    SplittableRandom random = new SplittableRandom(5);
    for (int i = 0; i < 20_000; i++) {
      byte[] bytes = new byte[16];
      for (int k = 0; k < 16; k++) {
        // Many zero groups, so that every compression case occurs.
        bytes[k] = random.nextInt(3) == 0 ? (byte) random.nextInt(256) : 0;
      }
      String text = IpAddress.format(bytes);
      assertThat(IpAddress.parse(text)).as(text).isEqualTo(bytes);
      String jdk = InetAddress.getByAddress(bytes).getHostAddress();
      assertThat(IpAddress.parse(jdk)).as(jdk).isEqualTo(bytes);
      assertThat(IpAddress.canonical(jdk.toUpperCase())).isEqualTo(text);
    }
  }

  @Test
  void matchesBlocksByPrefix() {
    Cidr block = Cidr.parse("10.0.0.0/8");
    assertThat(block.contains(IpAddress.parse("10.200.1.1"), 32)).isTrue();
    assertThat(block.contains(IpAddress.parse("11.0.0.1"), 32)).isFalse();
    assertThat(block.contains(IpAddress.parse("10.0.0.1"), 7)).isFalse(); // a shorter source prefix is not inside
    assertThat(Cidr.parse("FD00::/8").contains(IpAddress.parse("fd00:113::11"), 128)).isTrue();
    assertThat(Cidr.parse("fd00::/8")).hasToString("fd00::/8");
    assertThatThrownBy(() -> Cidr.parse("::::/8")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Cidr.parse("10.0.0.0/33")).hasMessageContaining("prefix length");
  }
}
