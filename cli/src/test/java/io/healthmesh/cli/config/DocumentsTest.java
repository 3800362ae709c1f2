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
  void rejectsTheFile_whenItUsesAYamlAlias() {
    // Jackson would hand the alias over as the anchor's name: project: *reg stored as "reg".
    assertThat(problems("""
        kind: HealthAggregationPolicy
        name: &reg majority
        region: us-east1
        project: *reg
        """)).containsExactly("test.yaml:1: syntax error at line 4: alias *reg is not supported; write the value out");
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
