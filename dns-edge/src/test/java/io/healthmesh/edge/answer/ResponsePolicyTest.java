package io.healthmesh.edge.answer;

import static io.healthmesh.edge.answer.PolicyFixtures.address;
import static io.healthmesh.edge.answer.PolicyFixtures.answers;
import static io.healthmesh.edge.answer.PolicyFixtures.behavior;
import static io.healthmesh.edge.answer.PolicyFixtures.local;
import static io.healthmesh.edge.answer.PolicyFixtures.parse;
import static io.healthmesh.edge.answer.PolicyFixtures.policy;
import static io.healthmesh.edge.answer.PolicyFixtures.query;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.LocalRecordSet;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ResponsePolicyRuleBehavior;
import io.healthmesh.config.ResponsePolicyRuleLocalData;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.edge.state.Snapshot;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/** R-RP-1: response policies answer before the zones, for the networks they are attached to. */
class ResponsePolicyTest {
  private static final InetAddress COVERED = address("10.1.2.3");
  private static final InetAddress OTHER = address("127.0.0.1");
  private final EdgeState state = Fixtures.state();
  private final AtomicReference<Snapshot> snapshot = new AtomicReference<>();
  private final Responder responder = Fixtures.responder(snapshot);

  private Message ask(String name, int type, InetAddress client) {
    snapshot.set(state.snapshot(true));
    return parse(responder.reply(query(name, type), client, false));
  }

  private void rule(ResponsePolicyRule rule) {
    assertThat(state.responsePolicyRule(rule.getResponsePolicy() + "/" + rule.getRuleName(), rule, 1)).isNull();
  }

  @Test
  void answersLocalDataBeforeTheZone_onlyForTheAttachedNetworks_R_RP_1() {
    state.responsePolicy("corp", policy("corp", "10.0.0.0/8"), 1);
    rule(local("corp", "override", "static.example.internal.", "A", "10.9.9.9"));
    Message covered = ask("static.example.internal.", Type.A, COVERED);
    assertThat(answers(covered)).containsExactly("static.example.internal. A 10.9.9.9");
    assertThat(covered.getHeader().getFlag(Flags.AA)).as("it overrides the zone, it is not the zone").isFalse();
    assertThat(answers(ask("static.example.internal.", Type.A, OTHER)))
        .containsExactly("static.example.internal. A 10.0.0.5");
    assertThat(answers(ask("static.example.internal.", Type.AAAA, COVERED))).as("NODATA: the rule has no AAAA").isEmpty();
    assertThat(ask("static.example.internal.", Type.AAAA, COVERED).getRcode()).isEqualTo(Rcode.NOERROR);
  }

  @Test
  void aCoveredClientWhoseNameNoRuleMatches_getsTheZonesAnswer_byteForByte_R_RP_1() {
    state.responsePolicy("corp", policy("corp", "10.0.0.0/8"), 1);
    rule(local("corp", "other", "other.example.internal.", "A", "10.9.9.9"));
    rule(behavior("corp", "deep", "*.x.y.example.internal.", ResponsePolicyRuleBehavior.nxdomain));
    snapshot.set(state.snapshot(true));
    byte[] q = query("static.example.internal.", Type.A);
    byte[] reply = responder.reply(q, COVERED, false);
    assertThat(reply).as("the fast path's answer is the full path's").isEqualTo(responder.fullReply(q, COVERED, false));
    assertThat(answers(parse(reply))).containsExactly("static.example.internal. A 10.0.0.5");
    assertThat(ask("a.b.x.y.example.internal.", Type.A, COVERED).getRcode()).isEqualTo(Rcode.NXDOMAIN);
  }

  @Test
  void theExactRuleBeatsAWildcard_andALongerWildcardAShorterOne_R_RP_1() {
    state.responsePolicy("corp", policy("corp", "10.0.0.0/8"), 1);
    rule(behavior("corp", "block-all", "*.example.internal.", ResponsePolicyRuleBehavior.nxdomain));
    rule(behavior("corp", "quiet-lab", "*.lab.example.internal.", ResponsePolicyRuleBehavior.nodata));
    rule(local("corp", "keep", "static.example.internal.", "A", "10.9.9.9"));
    assertThat(ask("api.example.internal.", Type.A, COVERED).getRcode()).isEqualTo(Rcode.NXDOMAIN);
    assertThat(ask("deep.down.example.internal.", Type.A, COVERED).getRcode()).isEqualTo(Rcode.NXDOMAIN);
    Message lab = ask("a.b.lab.example.internal.", Type.A, COVERED);
    assertThat(lab.getRcode()).isEqualTo(Rcode.NOERROR);
    assertThat(answers(lab)).isEmpty();
    assertThat(answers(ask("static.example.internal.", Type.A, COVERED)))
        .containsExactly("static.example.internal. A 10.9.9.9");
    assertThat(answers(ask("example.internal.", Type.MX, COVERED))).as("a wildcard matches below its name, not the name")
        .containsExactly("example.internal. MX 10 mail.example.internal.");
  }

  @Test
  void aBypassRuleAnswersAsTheZonesDo_R_RP_1() {
    state.responsePolicy("corp", policy("corp", "10.0.0.0/8"), 1);
    rule(behavior("corp", "block-all", "*.example.internal.", ResponsePolicyRuleBehavior.nxdomain));
    rule(behavior("corp", "allow-static", "static.example.internal.", ResponsePolicyRuleBehavior.bypassResponsePolicy));
    Message m = ask("static.example.internal.", Type.A, COVERED);
    assertThat(answers(m)).containsExactly("static.example.internal. A 10.0.0.5");
    assertThat(m.getHeader().getFlag(Flags.AA)).isTrue();
  }

  @Test
  void aWildcardsLocalDataIsAnsweredWithTheQueryName_andACnameForAnyType_R_RP_1() {
    state.responsePolicy("corp", policy("corp", "10.0.0.0/8"), 1);
    rule(local("corp", "sink", "*.ads.example.com.", "CNAME", "sinkhole.example.internal."));
    assertThat(answers(ask("x.ads.example.com.", Type.A, COVERED)))
        .containsExactly("x.ads.example.com. CNAME sinkhole.example.internal.");
    assertThat(answers(ask("x.ads.example.com.", Type.AAAA, COVERED)))
        .containsExactly("x.ads.example.com. CNAME sinkhole.example.internal.");
  }

  @Test
  void theLongestMatchingNetworkChoosesThePolicy_R_RP_1() {
    state.responsePolicy("wide", policy("wide", "10.0.0.0/8"), 1);
    state.responsePolicy("narrow", policy("narrow", "10.1.0.0/16"), 1);
    rule(local("wide", "a", "static.example.internal.", "A", "10.8.8.8"));
    rule(local("narrow", "a", "static.example.internal.", "A", "10.7.7.7"));
    assertThat(answers(ask("static.example.internal.", Type.A, COVERED)))
        .containsExactly("static.example.internal. A 10.7.7.7");
    assertThat(answers(ask("static.example.internal.", Type.A, address("10.2.0.1"))))
        .containsExactly("static.example.internal. A 10.8.8.8");
  }

  @Test
  void rulesOfTheSameNameServeTheFirstByRuleName_untilItGoes_R_RP_1() {
    state.responsePolicy("corp", policy("corp", "10.0.0.0/8"), 1);
    rule(local("corp", "b", "static.example.internal.", "A", "10.2.2.2"));
    rule(local("corp", "a", "static.example.internal.", "A", "10.1.1.1"));
    assertThat(answers(ask("static.example.internal.", Type.A, COVERED)))
        .containsExactly("static.example.internal. A 10.1.1.1");
    assertThat(state.responsePolicyRule("corp/a", null, 2)).isNull();
    assertThat(answers(ask("static.example.internal.", Type.A, COVERED)))
        .containsExactly("static.example.internal. A 10.2.2.2");
    assertThat(state.responsePolicyRule("corp/b", null, 3)).isNull();
    assertThat(answers(ask("static.example.internal.", Type.A, COVERED)))
        .containsExactly("static.example.internal. A 10.0.0.5");
  }

  @Test
  void aPolicyRemovedTakesItsRulesOutOfService_R_RP_1() {
    state.responsePolicy("corp", policy("corp", "10.0.0.0/8"), 1);
    rule(behavior("corp", "block", "static.example.internal.", ResponsePolicyRuleBehavior.nxdomain));
    assertThat(ask("static.example.internal.", Type.A, COVERED).getRcode()).isEqualTo(Rcode.NXDOMAIN);
    state.responsePolicy("corp", null, 2);
    assertThat(ask("static.example.internal.", Type.A, COVERED).getRcode()).isEqualTo(Rcode.NOERROR);
  }

  @Test
  void rejectsARuleThatBreaksTheRules_andKeepsThePreviousVersion_R_RP_1() {
    state.responsePolicy("corp", policy("corp", "10.0.0.0/8"), 1);
    rule(local("corp", "a", "static.example.internal.", "A", "10.1.1.1"));
    ResponsePolicyRule bad = ResponsePolicyRule.newBuilder().setResponsePolicy("corp").setRuleName("a")
        .setDnsName("static.*.example.internal.").setBehavior(ResponsePolicyRuleBehavior.nxdomain)
        .setLocalData(ResponsePolicyRuleLocalData.newBuilder().setLocalDatas(List.of(LocalRecordSet.newBuilder()
            .setName("other.example.internal.").setType("A").setRrdatas(List.of("not-an-address")).build())).build())
        .build();
    EdgeState.Rejection rejection = state.responsePolicyRule("corp/a", bad, 2);
    assertThat(rejection).isNotNull();
    assertThat(rejection.problems()).allMatch(p -> p.endsWith("(R-RP-1)")).hasSize(3)
        .anyMatch(p -> p.startsWith("dnsName:")).anyMatch(p -> p.startsWith("behavior:"))
        .anyMatch(p -> p.startsWith("localData.localDatas[0].rrdatas:"));
    assertThat(rejection.inForceOffset()).isEqualTo(1);
    assertThat(answers(ask("static.example.internal.", Type.A, COVERED)))
        .containsExactly("static.example.internal. A 10.1.1.1");
  }
}
