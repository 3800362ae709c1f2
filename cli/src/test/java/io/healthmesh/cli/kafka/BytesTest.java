package io.healthmesh.cli.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BytesTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void findsTheSoughtBytes_anywhereInTheRecord() {
    assertThat(Bytes.contains(utf8("\u0000\u0002rrdatas10.0.0.14\u0004"), utf8("10.0.0.1"))).isTrue();
    assertThat(Bytes.contains(utf8("10.0.0.1"), utf8("10.0.0.1"))).isTrue();
    assertThat(Bytes.contains(utf8("x10.0.0.1"), utf8("10.0.0.1"))).isTrue();
    assertThat(Bytes.contains(utf8("anything"), new byte[0])).isTrue();
  }

  @Test
  void findsNothing_whenOnlyAPrefixOrNothingMatches() {
    assertThat(Bytes.contains(utf8("10.0.0."), utf8("10.0.0.1"))).isFalse();
    assertThat(Bytes.contains(utf8("10.0.0.2 10.0.1.1"), utf8("10.0.0.1"))).isFalse();
    assertThat(Bytes.contains(new byte[0], utf8("a"))).isFalse();
  }
}
