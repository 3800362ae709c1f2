package io.healthmesh.edge.answer;

import static io.healthmesh.edge.answer.PolicyFixtures.address;
import static io.healthmesh.edge.answer.PolicyFixtures.answers;
import static io.healthmesh.edge.answer.PolicyFixtures.parse;
import static io.healthmesh.edge.answer.PolicyFixtures.query;
import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.AlternativeNameServerConfig;
import io.healthmesh.config.ForwardingConfig;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ServerPolicy;
import io.healthmesh.config.TargetNameServer;
import io.healthmesh.config.ZoneType;
import io.healthmesh.config.ZoneVisibility;
import io.healthmesh.edge.forward.ClientRateLimit;
import io.healthmesh.edge.forward.ForwardSettings;
import io.healthmesh.edge.forward.Forwarder;
import io.healthmesh.edge.forward.StubUpstream;
import io.healthmesh.edge.policy.Access;
import io.healthmesh.edge.routing.Regions;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.routing.SubnetRegions;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.edge.state.Snapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/** R-SP-1: forwarding, inbound access, query logging, and never an open resolver; upstreams on real loopback sockets. */
class ServerPolicyTest {
  private static final InetAddress MEMBER = address("10.1.2.3");
  private static final InetAddress STRANGER = address("192.168.7.7");
  private static final InetAddress ON_PREM = address("172.16.5.5");
  private final EdgeState state = Fixtures.state();
  private final AtomicReference<Snapshot> snapshot = new AtomicReference<>();
  private final AtomicLong clock = new AtomicLong();
  private final List<String> logged = new CopyOnWriteArrayList<>();
  private final List<String> refused = new CopyOnWriteArrayList<>();
  private final StubUpstream upstream;
  private final StubUpstream other;
  private final Forwarder forwarder;
  private final Responder responder;

  ServerPolicyTest() throws Exception {
    upstream = new StubUpstream("192.0.2.10", StubUpstream.Mode.ANSWER);
    other = new StubUpstream("192.0.2.20", StubUpstream.Mode.ANSWER);
    forwarder = new Forwarder(new ForwardSettings(Duration.ofMillis(200), 2, 100, 5, 5), new SimpleMeterRegistry());
    PolicyListener listener = new PolicyListener() {
      @Override
      public void refused(String reason) {
        refused.add(reason);
      }

      @Override
      public void answered(Access access, Message query, byte[] reply, boolean tcp, String source, long started) {
        logged.add(access.serverPolicy().name() + " " + access.client().getHostAddress() + " "
            + query.getQuestion().getName() + " " + Rcode.string(parse(reply).getRcode()) + " " + source);
      }
    };
    responder = new Responder(snapshot::get, new RoutingEngine(Regions.builtIn()), "us-east1", SubnetRegions.NONE,
        Rcode.SERVFAIL, () -> new SplittableRandom(1), Responder.DecisionListener.NONE,
        new Forwarding(forwarder, new ClientRateLimit(5, 5, clock::get)), listener);
  }

  @AfterEach
  void close() throws Exception {
    forwarder.close();
    upstream.close();
    other.close();
  }

  private static TargetNameServer target(InetSocketAddress address) {
    return TargetNameServer.newBuilder().setIpv4Address(address.getAddress().getHostAddress()).setPort(address.getPort())
        .build();
  }

  private ServerPolicy.Builder policy(InetSocketAddress... targets) {
    return ServerPolicy.newBuilder().setName("corp").setNetworks(List.of("10.0.0.0/8"))
        .setAlternativeNameServerConfig(AlternativeNameServerConfig.newBuilder()
            .setTargetNameServers(java.util.Arrays.stream(targets).map(ServerPolicyTest::target).toList()).build());
  }

  private void apply(ServerPolicy policy) {
    assertThat(state.serverPolicy(policy.getName(), policy, 1)).isNull();
  }

  private Message ask(String name, InetAddress client) {
    snapshot.set(state.snapshot(true));
    return parse(responder.reply(query(name, Type.A), client, false));
  }

  @Test
  void forwardsNamesOutsideTheZones_forItsNetworksOnly_R_SP_1() {
    apply(policy(upstream.address()).build());
    assertThat(answers(ask("www.example.com.", MEMBER))).containsExactly("www.example.com. A 192.0.2.10");
    assertThat(answers(ask("static.example.internal.", MEMBER))).as("a managed zone still answers itself")
        .containsExactly("static.example.internal. A 10.0.0.5");
    assertThat(ask("www.example.com.", STRANGER).getRcode()).as("never an open resolver").isEqualTo(Rcode.REFUSED);
    assertThat(refused).containsExactly("no_policy");
    assertThat(upstream.udpQueries.get()).isEqualTo(1);
  }

  @Test
  void triesTheNextTarget_andAnswersServfailWhenEveryAttemptFails_R_SP_1() {
    upstream.mode(StubUpstream.Mode.SILENT);
    apply(policy(upstream.address(), other.address()).build());
    assertThat(answers(ask("www.example.com.", MEMBER))).containsExactly("www.example.com. A 192.0.2.20");
    other.mode(StubUpstream.Mode.SILENT);
    long started = System.nanoTime();
    assertThat(ask("www.example.com.", MEMBER).getRcode()).isEqualTo(Rcode.SERVFAIL);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).as("two attempts of 200 ms").isLessThan(Duration.ofSeconds(3));
  }

  @Test
  void fetchesATruncatedReplyAgainOverTcp_R_SP_1() {
    upstream.mode(StubUpstream.Mode.TRUNCATE_UDP);
    apply(policy(upstream.address()).build());
    assertThat(answers(ask("www.example.com.", MEMBER))).containsExactly("www.example.com. A 192.0.2.10");
    assertThat(upstream.tcpQueries.get()).isEqualTo(1);
  }

  @Test
  void refusesAClientOverItsRate_andLetsItBackAsTimePasses_R_SP_1() {
    apply(policy(upstream.address()).build());
    for (int i = 0; i < 5; i++) {
      assertThat(ask("www.example.com.", MEMBER).getRcode()).isEqualTo(Rcode.NOERROR);
    }
    assertThat(ask("www.example.com.", MEMBER).getRcode()).isEqualTo(Rcode.REFUSED);
    assertThat(refused).containsExactly("rate_limited");
    assertThat(ask("static.example.internal.", MEMBER).getRcode()).as("zones are not rate limited").isEqualTo(Rcode.NOERROR);
    clock.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(ask("www.example.com.", MEMBER).getRcode()).isEqualTo(Rcode.NOERROR);
  }

  @Test
  void forwardsAForwardingZonesNames_toItsTargets_R_SP_1() {
    assertThat(state.zone("corp", ManagedZone.newBuilder().setName("corp").setDnsName("corp.example.")
        .setZoneType(ZoneType.FORWARDING).setVisibility(ZoneVisibility.PRIVATE).setNetworks(List.of("10.0.0.0/8"))
        .setForwardingConfig(ForwardingConfig.newBuilder().setTargetNameServers(List.of(target(other.address()))).build())
        .build(), 1)).isNull();
    assertThat(answers(ask("db.corp.example.", MEMBER))).containsExactly("db.corp.example. A 192.0.2.20");
    assertThat(ask("db.corp.example.", STRANGER).getRcode()).isEqualTo(Rcode.REFUSED);
  }

  @Test
  void inboundForwardingAdmitsOtherNetworks_asIfFromThePolicysOwn_R_SP_1() {
    assertThat(ask("static.example.internal.", ON_PREM).getRcode()).isEqualTo(Rcode.REFUSED);
    apply(policy(upstream.address()).setEnableInboundForwarding(true).setInboundNetworks(List.of("172.16.0.0/12"))
        .build());
    assertThat(answers(ask("static.example.internal.", ON_PREM))).as("the private zone of 10.0.0.0/8")
        .containsExactly("static.example.internal. A 10.0.0.5");
    assertThat(answers(ask("www.example.com.", ON_PREM))).containsExactly("www.example.com. A 192.0.2.10");
    assertThat(ask("www.example.com.", STRANGER).getRcode()).isEqualTo(Rcode.REFUSED);
  }

  @Test
  void logsTheQueriesOfALoggingPolicysClients_withWhatAnswered_R_SP_1() {
    apply(policy(upstream.address()).setEnableLogging(true).build());
    ask("www.example.com.", MEMBER);
    ask("static.example.internal.", MEMBER);
    ask("static.example.internal.", STRANGER);
    assertThat(logged).containsExactly(
        "corp 10.1.2.3 www.example.com. NOERROR forwarded:127.0.0.1:" + upstream.address().getPort(),
        "corp 10.1.2.3 static.example.internal. NOERROR zone:internal");
  }

  @Test
  void neverForwardsToItself_soAPolicyNamingTheEdgeCannotLoop_R_SP_1() throws Exception {
    apply(policy(upstream.address()).build());
    snapshot.set(state.snapshot(true));
    Responder looping = new Responder(snapshot::get, new RoutingEngine(Regions.builtIn()), "us-east1",
        SubnetRegions.NONE, Rcode.SERVFAIL, () -> new SplittableRandom(1), Responder.DecisionListener.NONE,
        new Forwarding(forwarder, new ClientRateLimit(0, 1, clock::get), upstream.address()::equals),
        PolicyListener.NONE);
    assertThat(parse(looping.reply(query("www.example.com.", Type.A), MEMBER, false)).getRcode())
        .isEqualTo(Rcode.SERVFAIL);
    assertThat(upstream.udpQueries.get()).isZero();
  }

  @Test
  void rejectsAPolicyThatBreaksTheRules_listingEveryProblem_R_SP_1() {
    ServerPolicy bad = ServerPolicy.newBuilder().setName("corp").setNetworks(List.of("10.0.0.0/33"))
        .setInboundNetworks(List.of("172.16.0.0/12")).setLoggingSampleRate(2)
        .setAlternativeNameServerConfig(AlternativeNameServerConfig.newBuilder().setTargetNameServers(List.of(
            TargetNameServer.newBuilder().setIpv4Address("not-an-ip").setPort(0).build())).build()).build();
    EdgeState.Rejection rejection = state.serverPolicy("corp", bad, 1);
    assertThat(rejection.problems()).allMatch(p -> p.endsWith("(R-SP-1)")).hasSize(5);
  }
}
