package io.healthmesh.cli.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class FaultsTest {

  @Test
  void aFaultFromOneRegion_failsOnlyThatRegionsProber_R_PQ_1() {
    Set<String> faults = Set.of("orders-use1 from europe-west1", "orders-euw1/vm-2");
    assertThat(Faults.failing(faults, "europe-west1", "orders-use1", "vm-1")).isTrue();
    assertThat(Faults.failing(faults, "us-east1", "orders-use1", "vm-1")).as("the other prober still reaches it").isFalse();
    assertThat(Faults.failing(faults, "us-east1", "orders-euw1", "vm-2")).as("a fault without --from: every prober").isTrue();
    assertThat(Faults.failing(faults, "europe-west1", "orders-euw1", "vm-2")).isTrue();
    assertThat(Faults.failing(faults, "europe-west1", "orders-euw1", "vm-1")).isFalse();
    assertThat(Faults.failing(Set.of("orders-use1/vm-1 from us-east1"), "us-east1", "orders-use1", "vm-1")).isTrue();
    assertThat(Faults.failing(Set.of(), "us-east1", "orders-use1", "vm-1")).isFalse();
  }
}
