package io.healthmesh.edge.state;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VersionsTest {
  @Test
  void givesTheVersionInForceAndItsOffset_whenReplacedAndRemoved() {
    Versions<String> versions = new Versions<>();
    assertThat(versions.offset("zone")).isEqualTo(-1);

    assertThat(versions.put("zone", "v1", 7)).isNull();
    assertThat(versions.put("zone", "v2", 9)).isEqualTo("v1");
    assertThat(versions.get("zone")).isEqualTo("v2");
    assertThat(versions.offset("zone")).isEqualTo(9);

    versions.offset("zone", "v2", 12); // the same version read again, further on
    assertThat(versions.offset("zone")).isEqualTo(12);

    assertThat(versions.put("zone", null, 13)).isEqualTo("v2");
    assertThat(versions.has("zone")).isFalse();
    assertThat(versions.offset("zone")).as("no version, no offset").isEqualTo(-1);
  }
}
