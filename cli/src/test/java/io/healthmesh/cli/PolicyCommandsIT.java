package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.healthmesh.cli.launch.Demo;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * Response and server policies (R-RP-1, R-SP-1) through a running demo: applied, listed and
 * deleted with healthctl, answered by the edges, and told by {@code audit queries} and
 * {@code audit explain --client}. The server policy's one upstream is a port nothing listens on,
 * so forwarded names get SERVFAIL once every attempt has timed out.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PolicyCommandsIT {
  private static Demo demo;
  private static Path dir;
  private static Instant applied;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("policy-commands-it");
    demo = Demo.start(dir, true, Demo.Ports.free(), false);
    int dead;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      dead = s.getLocalPort();
    }
    Path config = dir.resolve("policies.yaml");
    Files.writeString(config, """
        kind: ResponsePolicy
        responsePolicyName: corp
        networks: [127.0.0.0/8]
        ---
        kind: ResponsePolicyRule
        responsePolicy: corp
        ruleName: pinned
        dnsName: pinned.example.internal.
        localData: {localDatas: [{name: pinned.example.internal., type: A, ttl: 30, rrdatas: [10.9.9.9]}]}
        ---
        kind: ResponsePolicyRule
        responsePolicy: corp
        ruleName: block-ads
        dnsName: "*.ads.example.com."
        behavior: nxdomain
        ---
        kind: ServerPolicy
        name: corp
        networks: [127.0.0.1/32]
        enableLogging: true
        alternativeNameServerConfig: {targetNameServers: [{ipv4Address: 127.0.0.1, port: %d}]}
        """.formatted(dead));
    Cli.Run apply = run("apply", "-f", config.toString());
    assertThat(apply.exit()).as(apply.err()).isZero();
    applied = Instant.now();
    await("the rule answers").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> answers("pinned.example.internal."), a -> a.equals(List.of("10.9.9.9")));
  }

  @AfterAll
  static void stop() {
    demo.close();
  }

  @Test
  void getListsThePoliciesByTheirCloudDnsNames_R_RP_1_R_SP_1() throws Exception {
    JsonNode rule = json("get", "rpr", "corp/pinned", "-o", "json");
    assertThat(rule.get("kind").asText()).isEqualTo("ResponsePolicyRule");
    assertThat(rule.get("localData").get("localDatas").get(0).get("rrdatas").get(0).asText()).isEqualTo("10.9.9.9");
    String table = run("get", "all").out();
    assertThat(table).contains("ResponsePolicy ", "corp/block-ads", "ServerPolicy ");
  }

  @Test
  void validateRejectsABrokenRule_listingEveryProblemWithItsRuleId_R_RP_1() throws Exception {
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, """
        kind: ResponsePolicyRule
        responsePolicy: corp
        ruleName: twice
        dnsName: pinned.example.internal.
        """);
    Cli.Run validate = run("validate", "-f", bad.toString());
    assertThat(validate.exit()).as("invalid input").isEqualTo(2);
    assertThat(validate.err()).contains("and this one has neither (R-RP-1)",
        "rule 'pinned' of the same policy already matches 'pinned.example.internal.'; one rule per name (R-RP-1)");
  }

  @Test
  void blockedAndForwardedNames_areAnsweredAndLogged_andAuditTellsWhy_R_RP_1_R_SP_1() throws Exception {
    assertThat(rcode("x.ads.example.com.")).isEqualTo(Rcode.NXDOMAIN);
    assertThat(rcode("www.example.net.")).as("the only upstream is down").isEqualTo(Rcode.SERVFAIL);
    await("logged").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
      JsonNode queries = json("audit", "queries", "--client", "127.0.0.1", "-o", "json", "--no-progress");
      return queries.findValuesAsText("source").containsAll(List.of("response-policy:corp/block-ads", "servfail",
          "response-policy:corp/pinned"));
    });
    String table = run("audit", "queries", "--name", "www.example.net", "--no-progress").out();
    assertThat(table).contains("SERVFAIL", "servfail", "www.example.net.");

    Instant now = Instant.now().plusSeconds(1);
    String rule = run("audit", "explain", "x.ads.example.com", "A", "--at", now.toString(), "--client", "127.0.0.1",
        "--no-progress").out();
    assertThat(rule).contains("server policy corp", "rule block-ads (nxdomain)",
        "answered by response-policy rule corp/block-ads");
    String forwarded = run("audit", "explain", "www.example.net", "A", "--at", now.toString(), "--client",
        "127.0.0.5", "--no-progress").out();
    assertThat(forwarded).contains("server policy none", "REFUSED: no server policy forwards for it");
    String before = run("audit", "explain", "x.ads.example.com", "A", "--at", applied.minusSeconds(60).toString(),
        "--client", "127.0.0.1", "--no-progress").out();
    assertThat(before).as("before the policies were applied").contains("response policy none");
  }

  @Test
  void deleteRefusesAPolicyItsRulesStillName_R_RP_1() {
    Cli.Run delete = run("delete", "rp", "corp");
    assertThat(delete.exit()).as("invalid input").isEqualTo(2);
    assertThat(delete.err()).contains("ResponsePolicyRule/corp/pinned (already applied): responsePolicy: no"
        + " ResponsePolicy named 'corp' (R-RP-1)");
  }

  private static int rcode(String name) throws Exception {
    return query(name).getRcode();
  }

  private static List<String> answers(String name) throws Exception {
    return query(name).getSection(Section.ANSWER).stream().map(Record::rdataToString).toList();
  }

  private static Message query(String name) throws Exception {
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", demo.edges().get(0).port()));
    resolver.setTimeout(Duration.ofSeconds(10));
    return resolver.send(Message.newQuery(Record.newRecord(Name.fromConstantString(name), Type.A, DClass.IN)));
  }

  private static JsonNode json(String... args) throws Exception {
    return Cli.json(demo, args);
  }

  private static Cli.Run run(String... args) {
    return Cli.run(demo, args);
  }
}
