package io.healthmesh.haproxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.NegState;
import io.healthmesh.haproxy.ServerState.Admin;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReconcilerTest {
  private static final String STATE = """
      1
      # be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change
      3 orders-global 1 use1 127.0.0.1 2 0 1 1 0
      3 orders-global 2 euw1 127.0.0.1 0 1 1 1 0
      3 orders-global 3 asia 127.0.0.1 2 8 7 1 0
      """;

  @Test
  void parsesForcedStatesAndUserWeights_fromShowServersState() {
    Map<String, ServerState> servers = ServerState.parse(STATE).get("orders-global");
    assertThat(servers.get("use1")).isEqualTo(new ServerState("orders-global", "use1", Admin.ready, 1));
    assertThat(servers.get("euw1").admin()).isEqualTo(Admin.maint);
    assertThat(servers.get("asia").admin()).isEqualTo(Admin.drain);
    assertThat(servers.get("asia").weight()).isEqualTo(7);
  }

  @Test
  void firstActiveTakesTheWeight_otherActivesStandBy_inactiveAreInMaintenance() { // R-HAP-1
    var desired = new Reconciler(100).desired(decision(List.of("asia-east1", "us-east1")));
    assertThat(desired).containsExactly(Map.entry("asia", new Reconciler.Target(Admin.ready, 100)),
        Map.entry("use1", new Reconciler.Target(Admin.ready, 0)), Map.entry("euw1", new Reconciler.Target(Admin.maint, 0)));
  }

  @Test
  void onlyDifferencesBecomeCommands_andAMissingServerIsAProblem() { // R-HAP-1
    Reconciler r = new Reconciler(100);
    List<String> problems = new ArrayList<>();
    List<String> commands = r.commands("orders-global", r.desired(decision(List.of("us-east1", "europe-west1", "x"))),
        Map.of("use1", state("use1", Admin.ready, 1), "euw1", state("euw1", Admin.maint, 1),
            "asia", state("asia", Admin.maint, 0)), problems, w -> {});
    assertThat(commands).containsExactly("set server orders-global/use1 weight 100",
        "set server orders-global/euw1 state ready", "set server orders-global/euw1 weight 0");
    assertThat(problems).isEmpty();
    r.commands("orders-global", Map.of("gone", new Reconciler.Target(Admin.ready, 1)), Map.of(), problems, w -> {});
    assertThat(problems).singleElement().asString().contains("no server gone").contains("R-HAP-1");
  }

  @Test
  void aHandMadeChangeIsLeftAloneUntilItIsBack_butNotAfterARestart() { // R-HAP-3, R-HAP-2
    Reconciler r = new Reconciler(100);
    var want = Map.of("use1", new Reconciler.Target(Admin.ready, 100));
    List<String> warnings = new ArrayList<>();
    r.commands("b", want, Map.of("use1", state("use1", Admin.ready, 1)), new ArrayList<>(), warnings::add);
    assertThat(r.commands("b", want, Map.of("use1", state("use1", Admin.maint, 100)), new ArrayList<>(), warnings::add))
        .isEmpty();
    assertThat(r.overridden()).isEqualTo(1);
    assertThat(warnings).singleElement().asString().contains("by hand").contains("b/use1");
    assertThat(r.commands("b", want, Map.of("use1", state("use1", Admin.maint, 100)), new ArrayList<>(), warnings::add))
        .isEmpty();
    assertThat(warnings).hasSize(1); // said once
    r.restarted();
    assertThat(r.commands("b", want, Map.of("use1", state("use1", Admin.maint, 100)), new ArrayList<>(), warnings::add))
        .containsExactly("set server b/use1 state ready");
    assertThat(r.overridden()).isZero();
  }

  @Test
  void aRestartIsTold_byAnotherPidOrStartTime() { // R-HAP-2
    assertThat(HaproxyAdapter.process("Name: HAProxy\nPid: 12\nStart_time_sec: 99\n")).isEqualTo("12@99");
  }

  private static ServerState state(String name, Admin admin, int weight) {
    return new ServerState("orders-global", name, admin, weight);
  }

  private static ConsumerFailover decision(List<String> active) {
    return new ConsumerFailover(Instant.EPOCH, active, List.of(new NegState("use1", "us-east1", HealthStatus.HEALTHY),
        new NegState("euw1", "europe-west1", HealthStatus.UNHEALTHY), new NegState("asia", "asia-east1", HealthStatus.HEALTHY)));
  }
}
