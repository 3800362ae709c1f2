package io.healthmesh.edge.explain;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResponsePolicy;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ResponsePolicyRuleBehavior;
import io.healthmesh.config.ZoneVisibility;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QueryRouteTest {
  private static final ManagedZone ZONE = ManagedZone.newBuilder().setName("internal").setDnsName("example.internal.")
      .setVisibility(ZoneVisibility.PRIVATE).setNetworks(List.of("10.0.0.0/8")).build();
  private static final ResponsePolicy POLICY = ResponsePolicy.newBuilder().setResponsePolicyName("guard")
      .setNetworks(List.of("10.1.0.0/16")).build();
  private static final ResponsePolicyRule BLOCK = ResponsePolicyRule.newBuilder().setResponsePolicy("guard")
      .setRuleName("block").setDnsName("bad.example.internal.").setBehavior(ResponsePolicyRuleBehavior.nxdomain)
      .build();

  private static QueryRoute.Path route(String client, String name) throws Exception {
    return QueryRoute.of(new QueryRoute.Policies(Map.of("internal", ZONE), Map.of("guard", POLICY),
        Map.of("guard/block", BLOCK), Map.of()), InetAddress.getByName(client), name);
  }

  @Test
  void isAnsweredByTheRule_whenAResponsePolicyRuleMatchesTheClientsQuery() throws Exception {
    QueryRoute.Path path = route("10.1.2.3", "bad.example.internal");

    assertThat(path.way()).isEqualTo(QueryRoute.Way.RULE); // R-RP-1: before any zone
    assertThat(path.responsePolicy()).isEqualTo("guard");
    assertThat(path.rule()).isEqualTo("block");
    assertThat(path.ruleBehavior()).isEqualTo("nxdomain");
  }

  @Test
  void isAnsweredByTheZone_whenNoRuleAppliesToTheClient() throws Exception {
    QueryRoute.Path path = route("10.2.0.1", "bad.example.internal.");

    assertThat(path.way()).isEqualTo(QueryRoute.Way.ZONE);
    assertThat(path.zone()).isEqualTo("internal");
    assertThat(path.responsePolicy()).isNull();
  }

  @Test
  void isRefused_whenThePrivateZoneDoesNotAdmitTheClientAndNothingForwards() throws Exception {
    QueryRoute.Path path = route("192.0.2.7", "api.example.internal.");

    assertThat(path.way()).isEqualTo(QueryRoute.Way.REFUSED);
    assertThat(path.forwardedTo()).isEmpty();
  }
}
