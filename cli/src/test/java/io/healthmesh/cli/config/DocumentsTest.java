package io.healthmesh.cli.config;

import static io.healthmesh.cli.config.Configs.problems;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What a file may hold before any rule is checked: plain data, sensibly nested, validly named. */
class DocumentsTest {
  private static final String POLICY = """
      kind: HealthAggregationPolicy
      name: %s
      region: us-east1
      healthyPercentThreshold: 50
      """;

  @Test
  void rejectsTheName_whenItIsNotAnRfc1035Label() {
    assertThat(problems(POLICY.formatted("\"\"") + "---\n" + POLICY.formatted("evil/name") + "---\n"
        + POLICY.formatted("UPPER case name") + "---\n" + POLICY.formatted("ends-with-")
        + "---\n" + POLICY.formatted("x".repeat(64))))
        .hasSize(5)
        .allSatisfy(p -> assertThat(p).contains("is not a valid name").contains("(RFC 1035 label)"));
    assertThat(problems(POLICY.formatted("a") + "---\n" + POLICY.formatted("p-" + "9".repeat(61)))).isEmpty();
  }

  @Test
  void resolvesAnchorsAndAliases_asYamlToolsDo() {
    Documents.Loaded loaded = Documents.parse(new Documents.Piece("a.yaml", 0, 0, """
        kind: BackendService
        name: &svc orders
        region: us-east1
        healthCheck: &check {checkIntervalSec: 5, healthyThreshold: 2}
        endpoints:
          - &first {id: e1, ipAddress: 10.0.0.1, port: 8080}
          - *first
        ---
        kind: HealthSource
        name: *svc
        other: *check
        """.getBytes(StandardCharsets.UTF_8)));

    assertThat(loaded.problems()).containsExactly("a.yaml:2: syntax error at line 10: alias *svc refers to no anchor &svc"
        + " before it");
    assertThat(loaded.documents()).hasSize(1);
    var body = loaded.documents().get(0).body();
    assertThat(body.get("endpoints").get(1)).isEqualTo(body.get("endpoints").get(0));
    assertThat(body.get("endpoints").get(1).get("port").isInt()).isTrue(); // types as Jackson gives them
  }

  @Test
  void mergesMergeKeys_withTheFieldsBesideThemWinning() {
    assertThat(problems("""
        kind: HealthAggregationPolicy
        name: a
        region: us-east1
        healthyPercentThreshold: &half 50
        ---
        kind: HealthAggregationPolicy
        name: b
        <<: &base {region: us-east1, healthyPercentThreshold: 50}
        ---
        kind: HealthAggregationPolicy
        name: c
        <<: [{region: us-east1, healthyPercentThreshold: 50}, {minHealthyThreshold: 3}]
        healthyPercentThreshold: 70
        """)).isEmpty();
    Documents.Loaded merged = Documents.parse(new Documents.Piece("m.yaml", 0, 0, """
        base: &base {region: us-east1, healthyPercentThreshold: 50}
        policy: {<<: *base, healthyPercentThreshold: 70}
        """.getBytes(StandardCharsets.UTF_8)));
    assertThat(merged.documents().get(0).body().get("policy").toString())
        .isEqualTo("{\"healthyPercentThreshold\":70,\"region\":\"us-east1\"}");
  }

  @Test
  void refusesAnAliasBomb_withTheLimitInItsMessage() {
    StringBuilder bomb = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < 10; i++) {
      bomb.append("a").append(i).append(": &a").append(i).append(" [").append(String.join(", ",
          java.util.Collections.nCopies(10, "*a" + (i - 1)))).append("]\n");
    }
    assertThat(problems(bomb.toString())).singleElement().asString()
        .contains("aliases expand to more than " + Aliases.MAX_EXPANDED_TOKENS + " values; write the values out");
    String many = "a: &a [x]\nb: [" + "*a, ".repeat(Aliases.MAX_COLLECTION_ALIASES) + "*a]\n";
    assertThat(problems(many)).singleElement().asString()
        .contains("more than " + Aliases.MAX_COLLECTION_ALIASES + " aliases of lists or maps");
    StringBuilder wide = new StringBuilder("a0: &a0 [" + "x, ".repeat(100_000) + "x]\nb: [");
    wide.append("*a0, ".repeat(20)).append("*a0]\n");
    assertThat(problems(wide.toString())).singleElement().asString()
        .contains("aliases expand to more than " + Aliases.MAX_EXPANDED_TOKENS + " values");
  }

  @Test
  void reportsASyntaxError_whenTheDocumentIsNestedThousandsDeep() {
    int depth = 5_000;
    assertThat(problems("kind: BackendService\nname: deep\nx: " + "[".repeat(depth) + "]".repeat(depth) + "\n"))
        .containsExactly("test.yaml:1: syntax error: nested more than " + Documents.MAX_DEPTH + " levels deep");
  }

  @Test
  void saysTheFileIsNotUtf8_withoutNamingAJavaClass() {
    byte[] text = "kind: BackendService\nname: \u00ff\u00fe bad\n".getBytes(StandardCharsets.ISO_8859_1);

    Documents.Loaded loaded = Documents.parse(new Documents.Piece("bad.yaml", 0, 0, text));

    assertThat(loaded.documents()).isEmpty();
    assertThat(loaded.problems()).containsExactly("bad.yaml:1: not UTF-8 text: invalid UTF-8 start byte 0xff");
  }

  @Test
  void namesNoJavaClass_whenTheFileIsBroken() {
    for (String broken : new String[] {"kind: [", "a: b: c", "- x\ny: 1", "\t- tab", "{", "kind: BackendService\n  bad"}) {
      assertThat(problems(broken)).isNotEmpty().allSatisfy(p -> assertThat(p)
          .doesNotContainPattern("(java|com|org)\\.[a-z]+\\.|Exception|\\bnull\\b"));
    }
  }
}
