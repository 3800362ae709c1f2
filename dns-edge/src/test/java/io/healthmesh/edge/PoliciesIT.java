package io.healthmesh.edge;

import static io.healthmesh.edge.TopicRecords.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.healthmesh.config.AlternativeNameServerConfig;
import io.healthmesh.config.ForwardingConfig;
import io.healthmesh.config.GeoItem;
import io.healthmesh.config.GeoPolicy;
import io.healthmesh.config.LocalRecordSet;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.ResponsePolicy;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ResponsePolicyRuleBehavior;
import io.healthmesh.config.ResponsePolicyRuleLocalData;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.ServerPolicy;
import io.healthmesh.config.TargetNameServer;
import io.healthmesh.config.ZoneType;
import io.healthmesh.edge.servers.Dig;
import io.healthmesh.edge.servers.NameServerProcess;
import io.healthmesh.edge.servers.Nsd;
import io.healthmesh.edge.servers.Unbound;
import io.healthmesh.events.DnsQueryLog;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * R-RP-1 and R-SP-1 end to end: the policies come from the topics, the upstream is NSD, the
 * clients are dig and dnsjava's resolver, and an unbound resolver in front of the edge (a stub
 * zone) gets the right answers, TTLs, client-subnet answers and the whole of a truncated answer.
 * Clients are told apart by loopback address: 127.0.0.1 is in the server policy's networks,
 * 127.0.0.3 is admitted by inbound forwarding, 127.0.0.2 is nobody's.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PoliciesIT {
  private static final String UPSTREAM_ZONE = """
      $ORIGIN upstream.test.
      $TTL 120
      @ IN SOA ns.upstream.test. admin.upstream.test. 1 3600 600 86400 60
      @ IN NS ns.upstream.test.
      ns IN A 127.0.0.1
      www IN A 192.0.2.80
      """ + IntStream.range(0, 40).mapToObj(i -> "big IN TXT \"" + "y".repeat(60) + i + "\"\n")
      .reduce("", String::concat);
  private static final String FORWARDED_ZONE = """
      $ORIGIN fwd.test.
      $TTL 90
      @ IN SOA ns.fwd.test. admin.fwd.test. 1 3600 600 86400 60
      @ IN NS ns.fwd.test.
      ns IN A 127.0.0.1
      db IN A 192.0.2.81
      """;

  private static EmbeddedKafka kafka;
  private static SchemaRegistry registry;
  private static SchemaRegistryClient client;
  private static NameServerProcess nsd;
  private static EdgeApp edge;
  private static final SimpleMeterRegistry METERS = new SimpleMeterRegistry();

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("policies-it");
    nsd = Nsd.start(dir.resolve("nsd"), Map.of("upstream.test", UPSTREAM_ZONE, "fwd.test", FORWARDED_ZONE));
    kafka = EmbeddedKafka.builder().partitions(2).start();
    registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()));
    client = new RestSchemaRegistryClient(registry.url());
    TargetNameServer upstream = TargetNameServer.newBuilder().setIpv4Address("127.0.0.1").setPort(nsd.port()).build();
    send(kafka, client, Topics.MANAGED_ZONES, "internal", ManagedZone.newBuilder().setName("internal")
        .setDnsName("example.internal.").setNetworks(List.of("127.0.0.0/8")).build());
    send(kafka, client, Topics.MANAGED_ZONES, "vpc", ManagedZone.newBuilder().setName("vpc")
        .setDnsName("vpc.internal.").setNetworks(List.of("127.0.0.1/32")).build());
    send(kafka, client, Topics.MANAGED_ZONES, "fwd", ManagedZone.newBuilder().setName("fwd").setDnsName("fwd.test.")
        .setZoneType(ZoneType.FORWARDING).setNetworks(List.of("127.0.0.1/32"))
        .setForwardingConfig(ForwardingConfig.newBuilder().setTargetNameServers(List.of(upstream)).build()).build());
    recordSet("internal", "static.example.internal.", "A", 300, List.of("10.0.0.5"));
    recordSet("vpc", "app.vpc.internal.", "A", 300, List.of("10.0.0.6"));
    recordSet("internal", "big.example.internal.", "TXT", 300,
        IntStream.range(0, 40).mapToObj(i -> "\"" + "x".repeat(60) + i + "\"").toList());
    send(kafka, client, Topics.RESOURCE_RECORD_SETS, "internal/geo.example.internal./A", ResourceRecordSet.newBuilder()
        .setZone("internal").setName("geo.example.internal.").setType("A").setTtl(60)
        .setRoutingPolicy(RoutingPolicy.newBuilder().setGeo(GeoPolicy.newBuilder().setItems(List.of(
            GeoItem.newBuilder().setLocation("us-east1").setRrdatas(List.of("10.1.0.1")).build(),
            GeoItem.newBuilder().setLocation("europe-west1").setRrdatas(List.of("10.3.0.1")).build())).build()).build())
        .build());
    send(kafka, client, Topics.SERVER_POLICIES, "corp", ServerPolicy.newBuilder().setName("corp")
        .setNetworks(List.of("127.0.0.1/32")).setEnableInboundForwarding(true)
        .setInboundNetworks(List.of("127.0.0.3/32", "127.0.0.4/32")).setEnableLogging(true)
        .setAlternativeNameServerConfig(AlternativeNameServerConfig.newBuilder().setTargetNameServers(List.of(upstream))
            .build()).build());
    send(kafka, client, Topics.RESPONSE_POLICIES, "corp", ResponsePolicy.newBuilder().setResponsePolicyName("corp")
        .setNetworks(List.of("127.0.0.0/8")).build());
    send(kafka, client, Topics.RESPONSE_POLICY_RULES, "corp/override", ResponsePolicyRule.newBuilder()
        .setResponsePolicy("corp").setRuleName("override").setDnsName("static.example.internal.")
        .setLocalData(ResponsePolicyRuleLocalData.newBuilder().setLocalDatas(List.of(LocalRecordSet.newBuilder()
            .setName("static.example.internal.").setType("A").setTtl(45).setRrdatas(List.of("10.9.9.9")).build()))
            .build()).build());
    send(kafka, client, Topics.RESPONSE_POLICY_RULES, "corp/block", ResponsePolicyRule.newBuilder()
        .setResponsePolicy("corp").setRuleName("block").setDnsName("*.blocked.test.")
        .setBehavior(ResponsePolicyRuleBehavior.nxdomain).build());
    Properties p = TopicRecords.edgeSettings(kafka, registry.url());
    p.setProperty(EdgeSettings.CLIENT_SUBNET_REGIONS, "10.200.0.0/16=europe-west1");
    p.setProperty(EdgeSettings.FORWARD_RATE, "20");
    p.setProperty(EdgeSettings.FORWARD_BURST, "20");
    edge = EdgeApp.start(EdgeSettings.from(p), client, METERS);
    await("policies served").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
        .until(() -> edge.ready() && edge.snapshot().policies().responsePolicies().stream()
            .mapToInt(a -> a.rules().size()).sum() == 2 && !edge.snapshot().policies().serverPolicies().isEmpty());
  }

  private static void recordSet(String zone, String name, String type, int ttl, List<String> rrdatas) throws Exception {
    send(kafka, client, Topics.RESOURCE_RECORD_SETS, zone + "/" + name + "/" + type, ResourceRecordSet.newBuilder()
        .setZone(zone).setName(name).setType(type).setTtl(ttl).setRrdatas(rrdatas).build());
  }

  @AfterAll
  static void stop() throws Exception {
    if (edge != null) {
      edge.close();
    }
    if (registry != null) {
      registry.close();
    }
    if (kafka != null) {
      kafka.close();
    }
    if (nsd != null) {
      nsd.close();
    }
  }

  @Test
  void forwardsNamesOutsideTheZones_toNsd_withItsTtls_R_SP_1() throws Exception {
    String out = Dig.ask(edge.port(), "www.upstream.test", "A", "+norecurse");
    assertThat(Dig.status(out)).isEqualTo("NOERROR");
    assertThat(out).containsPattern("www\\.upstream\\.test\\.\\s+120\\s+IN\\s+A\\s+192\\.0\\.2\\.80");
    assertThat(Dig.answers(edge.port(), "db.fwd.test", "A")).as("a forwarding zone's name").containsExactly("192.0.2.81");
    assertThat(Dig.status(Dig.ask(edge.port(), "nothing.upstream.test", "A"))).isEqualTo("NXDOMAIN");
  }

  @Test
  void refusesClientsNoServerPolicyCovers_butAdmitsInboundOnes_R_SP_1() throws Exception {
    assertThat(Dig.status(Dig.ask(edge.port(), "www.upstream.test", "A", "-b", "127.0.0.2"))).isEqualTo("REFUSED");
    assertThat(Dig.status(Dig.ask(edge.port(), "db.fwd.test", "A", "-b", "127.0.0.2"))).isEqualTo("REFUSED");
    assertThat(Dig.status(Dig.ask(edge.port(), "app.vpc.internal", "A", "-b", "127.0.0.2"))).isEqualTo("REFUSED");
    assertThat(Dig.answers(edge.port(), "www.upstream.test", "A", "-b", "127.0.0.3")).containsExactly("192.0.2.80");
    assertThat(Dig.answers(edge.port(), "app.vpc.internal", "A", "-b", "127.0.0.3"))
        .as("inbound: the private zone of the policy's network").containsExactly("10.0.0.6");
    assertThat(METERS.get("healthmesh.dns.forward.refused").tag("reason", "no_policy").counter().count()).isPositive();
  }

  @Test
  void answersResponsePolicyRulesBeforeTheZones_R_RP_1() throws Exception {
    String override = Dig.ask(edge.port(), "static.example.internal", "A");
    assertThat(override).containsPattern("static\\.example\\.internal\\.\\s+45\\s+IN\\s+A\\s+10\\.9\\.9\\.9");
    assertThat(override).doesNotContain(" aa");
    assertThat(Dig.status(Dig.ask(edge.port(), "x.blocked.test", "A"))).isEqualTo("NXDOMAIN");
    assertThat(Dig.status(Dig.ask(edge.port(), "blocked.test", "A")))
        .as("not below its own wildcard, so forwarded; NSD serves no such zone").isEqualTo("REFUSED");
    assertThat(METERS.get("healthmesh.dns.response.policy.answers").tag("policy", "corp").tag("behavior", "nxdomain")
        .counter().count()).isPositive();
  }

  @Test
  void aTruncatedForwardedAnswerIsTruncatedForAUdpClient_andWholeOverTcp_R_SP_1() throws Exception {
    String udp = Dig.ask(edge.port(), "big.upstream.test", "TXT", "+notcp", "+ignore", "+bufsize=512");
    assertThat(udp).contains(" tc");
    assertThat(Dig.answers(edge.port(), "big.upstream.test", "TXT", "+tcp")).hasSize(40);
    assertThat(Dig.answers(edge.port(), "big.upstream.test", "TXT")).as("dig retries over TCP itself").hasSize(40);
    assertThat(METERS.get("healthmesh.dns.forwarded").tag("result", "tcp").counter().count()).isPositive();
  }

  @Test
  void limitsForwardedQueriesPerClient_andCountsTheRefused_R_SP_1() throws Exception {
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress(InetAddress.getLoopbackAddress(), edge.port()));
    resolver.setLocalAddress(new InetSocketAddress(InetAddress.getByName("127.0.0.4"), 0));
    resolver.setTimeout(Duration.ofSeconds(3));
    List<Integer> rcodes = new ArrayList<>();
    long started = System.nanoTime();
    for (int i = 0; i < 60; i++) {
      rcodes.add(resolver.send(Message.newQuery(Record.newRecord(Name.fromString("www.upstream.test."), Type.A,
          DClass.IN))).getRcode());
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    long answered = rcodes.stream().filter(r -> r == Rcode.NOERROR).count();
    assertThat(answered).as("a burst of 20 and 20 a second over %.2f s", seconds)
        .isBetween(20L, 20L + (long) Math.ceil(20 * seconds) + 1);
    assertThat(rcodes).contains(Rcode.REFUSED);
    assertThat(METERS.get("healthmesh.dns.forward.refused").tag("reason", "rate_limited").counter().count())
        .isEqualTo(60 - answered);
  }

  @Test
  void logsThePolicysQueriesToTheTopic_withWhatAnsweredThem_R_SP_1() throws Exception {
    Dig.ask(edge.port(), "www.upstream.test", "A");
    Dig.ask(edge.port(), "static.example.internal", "A");
    Dig.ask(edge.port(), "app.vpc.internal", "A");
    List<DnsQueryLog> logged = new ArrayList<>();
    try (KafkaConsumer<String, DnsQueryLog> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
        "earliest", ConsumerConfig.GROUP_ID_CONFIG, "policies-it"), Topics.DNS_QUERY_LOG.keySerde(client).deserializer(),
        Topics.DNS_QUERY_LOG.valueSerde(client).deserializer())) {
      consumer.subscribe(List.of(Topics.DNS_QUERY_LOG.name()));
      await("query log").atMost(Duration.ofSeconds(30)).until(() -> {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> logged.add(r.value()));
        return logged.stream().map(DnsQueryLog::getSource).toList().containsAll(List.of(
            "forwarded:127.0.0.1:" + nsd.port(), "response-policy:corp/override", "zone:vpc"));
      });
    }
    // This test's own query: dig asks from 127.0.0.1, and NSD serves upstream.test.
    DnsQueryLog forwarded = logged.stream().filter(l -> l.getSource().startsWith("forwarded:")
        && l.getQueryName().equals("www.upstream.test.") && l.getClient().equals("127.0.0.1")).findFirst().orElseThrow();
    assertThat(forwarded.getServerPolicy()).isEqualTo("corp");
    assertThat(forwarded.getRcode()).isEqualTo("NOERROR");
    assertThat(forwarded.getLatencyMicros()).as("a round trip to NSD, within the forwarder's budget").isBetween(1L,
        10_000_000L);
    assertThat(logged).allMatch(l -> l.getEdge().equals("edge-us-east1"));
    assertThat(logged).allSatisfy(l -> assertThat(l.getLatencyMicros()).as(l.getSource()).isBetween(0L, 30_000_000L));
    assertThat(logged).as("no policy, no log").noneMatch(l -> l.getClient().equals("127.0.0.2"));
  }

  @Test
  void anUnboundResolverInFrontOfTheEdge_getsAnswersTtlsClientSubnetsAndTruncatedAnswersWhole() throws Exception {
    Path dir = Files.createTempDirectory("unbound-it");
    try (NameServerProcess unbound = Unbound.start(dir, """
        stub-zone:
          name: "example.internal."
          stub-addr: 127.0.0.1@%d
        """.formatted(edge.port()), "example.internal.")) {
      assertThat(Dig.answers(unbound.port(), "app2.example.internal", "A")).isEmpty();
      String first = Dig.ask(unbound.port(), "geo.example.internal", "A");
      assertThat(first).containsPattern("geo\\.example\\.internal\\.\\s+(60|59)\\s+IN\\s+A\\s+10\\.1\\.0\\.1");
      Thread.sleep(1100);
      String cached = Dig.ask(unbound.port(), "geo.example.internal", "A");
      java.util.regex.Matcher ttl = java.util.regex.Pattern.compile("geo\\.example\\.internal\\.\\s+(\\d+)").matcher(cached);
      assertThat(ttl.find()).as(cached).isTrue();
      assertThat(Integer.parseInt(ttl.group(1))).as("counted down in unbound's cache").isBetween(50, 59);
      // R-GEO-1 through a real resolver: unbound passes the client's subnet on, and caches by the scope answered.
      assertThat(Dig.answers(unbound.port(), "geo.example.internal", "A", "+subnet=10.200.1.0/24"))
          .containsExactly("10.3.0.1");
      assertThat(Dig.answers(unbound.port(), "geo.example.internal", "A", "+subnet=10.50.1.0/24"))
          .containsExactly("10.1.0.1");
      double tcpBefore = tcpQueries();
      assertThat(Dig.answers(unbound.port(), "big.example.internal", "TXT", "+tcp")).hasSize(40);
      assertThat(tcpQueries()).as("unbound asked again over TCP after the edge truncated").isGreaterThan(tcpBefore);
    }
  }

  private static double tcpQueries() {
    return METERS.find("healthmesh.dns.queries").tag("transport", "tcp").counters().stream()
        .mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
  }
}
