package io.healthmesh.cli.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The plain subset reads exactly what the full parser reads, or gives the piece up to it. */
class PlainYamlTest {
  /** Scalars of every kind YAML 1.1 distinguishes, and near misses. */
  private static final List<String> SCALARS = List.of("a", "orders-use1", "10.0.0.1", "127.0.0.0/8", "0", "1", "-1",
      "42", "123456789", "1234567890", "99999999999999999999", "007", "0o17", "0x1F", "0b101", "1_000", "1.5", ".5",
      "1e3", "1.0e+3", "-0", "-0.5", "00.5", "0.", "-1.", "1.2.", "0.1", "-2.50", "100.0", "01.5", "1.", "3.14159265358979", "-.inf", ".inf", ".NaN", "12:30", "1:20:30", "2026-12-03", "2026-12-03T12:00:00Z", "true",
      "false", "True", "FALSE", "yes", "No", "on", "OFF", "y", "n", "null", "Null", "~", "<<", "=", "-", "-a", "+1",
      "a b", "a  b", "a #b", "a# b", "http://x/y", "/healthz", "a:b", "é-ü", "1.2.3", "1.2.3e4", "1.2.3-4", "10.0.0.1:80",
      "'q'", "\"d\"", "'it''s'", "\"a\\\"b\"", "\"a\\\\b\"", "\"tab\\t\"", "\"\"", "''", "a,b", "[a]", "{a: b}", "!x",
      "&a", "*a", "|", ">", "? a", "%x", "@x", "`x", "a: b");
  private static final List<String> TEMPLATES = List.of("k: %s\n", "- %s\n", "k: [%s]\n", "k: [x, %s, y]\n",
      "k: {a: %s}\n", "k: {a: %s, b: 1}\n", "- k: %s\n  j: 1\n", "k:\n  - %s\n", "k: %s # c\n", "%s: 1\n",
      "{a: %s}\n", "k: {a: [%s]}\n");

  @Test
  void readsWhatTheFullParserReads_forEveryScalarInEveryPlace() {
    int taken = 0;
    for (String scalar : SCALARS) {
      for (String template : TEMPLATES) {
        taken += same(template.formatted(scalar)) ? 1 : 0;
      }
    }
    assertThat(taken).as("the plain subset answers most of them").isGreaterThan(SCALARS.size() * TEMPLATES.size() / 3);
  }

  @Test
  void readsWhatTheFullParserReads_forStructures() {
    List<String> mustTake = List.of(
        "kind: BackendService\nname: a\nendpoints:\n  - {id: vm-1, ipAddress: 10.1.0.11, port: 8080}\n  - {id: vm-2}\n",
        "healthCheck: {protocol: HTTP, port: 8080, requestPath: /healthz,\n  healthyThreshold: 2}\nx: 1\n",
        "a:\n- 1\n- 2\nb: 3\n",
        "- name: x\n  items:\n  - a\n  - b\n- name: z\n",
        "# lead\n\n---\na: 1\n---\n# c\nb: [1, 2]   # tail\n",
        "a:\n  b:\n    c: d\n  e: f\ng: h\n",
        "routingPolicy:\n  wrr:\n    items:\n      - weight: 100\n        rrdatas: [10.255.0.100]\n"
            + "        healthCheckedTargets: {externalEndpoints: [10.255.0.100]}\n      - weight: 0\n"
            + "        rrdatas: [10.255.0.101]\n",
        "a: {}\nb: []\nc: {d: [], e: {}}\n",
        "'q k': 1\n\"d k\": 2\n",
        "a: x\n\n\n   # indented comment\nb: z\n");
    for (String yaml : mustTake) {
      assertThat(same(yaml)).as("read by the plain subset:\n" + yaml).isTrue();
    }
    List<String> others = List.of("a: 1\na: 2\n", "a:\n", "a: b\n  c\n", "a: |\n  x\n", "a: >\n  x\n",
        "a: &x 1\nb: *x\n", "a: !!str 1\n", "--- a\n", "a: 1\n---\n---\nb: 1\n", "a: [1, 2,]\n", "a: [1\n", "a: {b}\n",
        "a:\n  - x\n   - y\n", "a:\n\tb: 1\n", "a: 1\r\nb: 2\r\n", "- - a\n", "a: 1\n b: 2\n", " a: 1\nb: 2\n",
        "a: [x,\n# c\n  y]\n", "a: [x,\ny]\n", "? a\n: b\n", "a: \"x\ny\"\n", "a: 'x\n  y'\n", "a: \"\\u00e9\"\n",
        "...\n", "%YAML 1.1\n---\na: 1\n", "a: 1 #c\n#d\n", "a:b\n", "a : 1\n", "[1, 2]\n", "hello\n", "- a\n-\n",
        "a:\n  - b\n  c: d\n");
    for (String yaml : others) {
      same(yaml);
    }
    StringBuilder deep = new StringBuilder();
    for (int i = 0; i < 70; i++) {
      deep.append("  ".repeat(i)).append("k").append(i).append(":\n");
    }
    deep.append("  ".repeat(70)).append("x: 1\n");
    same(deep.toString());
    same("a: " + "[".repeat(80) + "]".repeat(80) + "\n");
  }

  @Test
  void readsWhatTheFullParserReads_forRandomDocuments() {
    Random random = new Random(33);
    for (int i = 0; i < 2_000; i++) {
      same(randomDocument(random));
    }
  }

  @Test
  void readsTheExamplesWithoutTheFullParser() throws IOException {
    for (Path file : List.of(Path.of("../examples/demo.yaml"))) {
      byte[] text = Files.readAllBytes(file);
      for (Documents.Piece piece : DocumentSplitter.split(file.toString(), text, 1024)) {
        assertThat(same(new String(piece.text(), StandardCharsets.UTF_8))).as(file + " piece " + piece.index()).isTrue();
      }
    }
  }

  /** Whether the plain subset read it; when it did, it must agree with the full parser. */
  private static boolean same(String yaml) {
    byte[] text = yaml.getBytes(StandardCharsets.UTF_8);
    List<JsonNode> plain = PlainYaml.parse(text);
    if (plain == null) {
      return false;
    }
    Documents.Loaded full = Documents.parseFully(new Documents.Piece("t", 0, 0, text), false);
    assertThat(full.problems()).as("the full parser accepts what the plain subset read:\n" + yaml).isEmpty();
    List<JsonNode> expected = new ArrayList<>();
    full.documents().forEach(d -> expected.add(d.body()));
    assertThat(plain).as("read the same:\n" + yaml).isEqualTo(expected);
    for (int i = 0; i < plain.size(); i++) {
      assertThat(plain.get(i).toString()).as("same order and node types:\n" + yaml).isEqualTo(expected.get(i).toString());
      assertThat(types(plain.get(i))).isEqualTo(types(expected.get(i)));
    }
    return true;
  }

  private static String types(JsonNode node) {
    StringBuilder out = new StringBuilder(node.getNodeType() + "/" + node.getClass().getSimpleName());
    node.forEach(child -> out.append('(').append(types(child)).append(')'));
    return out.toString();
  }

  private static String randomDocument(Random random) {
    StringBuilder out = new StringBuilder();
    block(out, random, 0, 0);
    return out.toString();
  }

  private static void block(StringBuilder out, Random random, int indent, int depth) {
    int entries = 1 + random.nextInt(3);
    boolean sequence = depth > 0 && random.nextInt(3) == 0;
    for (int i = 0; i < entries; i++) {
      out.append(" ".repeat(indent));
      if (sequence) {
        out.append("- ");
      } else {
        out.append("k").append(i).append(random.nextBoolean() ? ":" : " :").append(' ');
      }
      int kind = depth > 3 ? 0 : random.nextInt(4);
      if (kind == 0) {
        out.append(SCALARS.get(random.nextInt(SCALARS.size())));
      } else if (kind == 1) {
        out.append(random.nextBoolean() ? "[" : "{");
        int n = random.nextInt(3);
        boolean map = out.charAt(out.length() - 1) == '{';
        for (int j = 0; j < n; j++) {
          out.append(j > 0 ? (random.nextInt(4) == 0 ? ",\n" + " ".repeat(indent + 1 + random.nextInt(3)) : ", ") : "");
          out.append(map ? "f" + j + ": " : "").append(SCALARS.get(random.nextInt(SCALARS.size())));
        }
        out.append(map ? "}" : "]");
      }
      if (random.nextInt(5) == 0) {
        out.append(" # note");
      }
      out.append('\n');
      if (kind >= 2) {
        int offset = random.nextInt(4) == 0 ? 0 : 2;
        out.setLength(out.length() - 1);
        out.setLength(out.length() - (out.charAt(out.length() - 1) == ' ' ? 1 : 0));
        out.append('\n');
        block(out, random, indent + offset + (sequence ? 2 : 0), depth + 1);
      }
      if (random.nextInt(6) == 0) {
        out.append(random.nextBoolean() ? "\n" : " ".repeat(random.nextInt(4)) + "# between\n");
      }
    }
  }
}
