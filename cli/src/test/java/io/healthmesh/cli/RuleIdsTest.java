package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every rule id cited anywhere in the repository is defined in docs/rules.md, the one place that
 * says it, and every rule defined there is named by a test.
 */
class RuleIdsTest {
  private static final Path ROOT = Path.of("..");
  private static final Pattern ID = Pattern.compile("R-[A-Z]+-\\d+");
  private static final Pattern DEFINED = Pattern.compile("^- \\*\\*(R-[A-Z]+-\\d+)\\*\\* ", Pattern.MULTILINE);
  private static final Set<String> SCANNED = Set.of(".java", ".md", ".yaml", ".yml", ".avsc", ".json", ".py", ".c");

  @Test
  void resolvesEveryCitedRuleId_inDocsRules() throws IOException {
    Set<String> defined = new TreeSet<>();
    Matcher d = DEFINED.matcher(Files.readString(ROOT.resolve("docs/rules.md")));
    while (d.find()) {
      assertThat(defined.add(d.group(1))).as(d.group(1) + " is defined once").isTrue();
    }
    TreeMap<String, Path> undefined = new TreeMap<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path file : files.filter(RuleIdsTest::scanned).toList()) {
        Matcher m = ID.matcher(Files.readString(file));
        while (m.find()) {
          if (!defined.contains(m.group())) {
            undefined.putIfAbsent(m.group(), file);
          }
        }
      }
    }
    assertThat(defined).hasSizeGreaterThan(50);
    assertThat(undefined).as("rule ids cited but not defined in docs/rules.md (id=first file)").isEmpty();
  }

  @Test
  void citesEveryRuleInATest_whenDefinedInDocsRules() throws IOException {
    Set<String> untested = new TreeSet<>();
    Matcher d = DEFINED.matcher(Files.readString(ROOT.resolve("docs/rules.md")));
    while (d.find()) {
      untested.add(d.group(1));
    }
    assertThat(untested).hasSizeGreaterThan(50);
    // A test names its rule in its method name (R_WRR_5), an assertion or a comment (R-WRR-5).
    Pattern cited = Pattern.compile("R[-_][A-Z]+[-_]\\d+");
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path file : files.filter(p -> scanned(p) && p.toString().contains("/src/test/")).toList()) {
        Matcher m = cited.matcher(Files.readString(file));
        while (m.find()) {
          untested.remove(m.group().replace('_', '-'));
        }
      }
    }
    assertThat(untested).as("rules of docs/rules.md that no test under src/test names").isEmpty();
  }

  private static boolean scanned(Path p) {
    String s = p.toString();
    return Files.isRegularFile(p) && SCANNED.stream().anyMatch(s::endsWith)
        && !s.contains("/target/") && !s.contains("/.git/") && !s.contains("/data/") && !s.contains("/node_modules/");
  }
}
