package io.healthmesh.cli.launch;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.BackendType;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.LoadBalancingScheme;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo simulates probes of its own sample services only, never of services a user applied. */
class ProbeSimulatorTest {

  @Test
  void simulatesOnlyTheSampleServices_whenAUserAppliedAnotherOne() {
    List<BackendService> applied = new ArrayList<>();
    SampleConfig.resources().stream().filter(r -> r.value() instanceof BackendService)
        .forEach(r -> applied.add((BackendService) r.value()));
    int sample = applied.size();
    applied.add(BackendService.newBuilder().setName("mine").setRegion("us-east1")
        .setLoadBalancingScheme(LoadBalancingScheme.INTERNAL_MANAGED).setBackendType(BackendType.GCE_VM_IP_PORT)
        .setHealthCheck(HealthCheckSpec.newBuilder().build()).build());

    List<BackendService> simulated = ProbeSimulator.simulated(applied);

    assertThat(sample).isPositive();
    assertThat(simulated).hasSize(sample).noneMatch(s -> s.getName().equals("mine"));
  }
}
