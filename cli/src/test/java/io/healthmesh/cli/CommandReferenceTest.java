package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/commands.md holds, below its marker, exactly what {@link CommandReference} writes from the
 * command definitions. After changing a command, write the page again with
 * {@code mvn -pl cli test -Dtest=CommandReferenceTest -Dhealthmesh.docs.write=true}.
 */
class CommandReferenceTest {
  static final Path PAGE = Path.of("../docs/commands.md");
  static final String MARKER = "<!-- Generated from healthctl's command definitions by CommandReference: edit the commands, not this. -->\n";

  @Test
  void documentsEveryCommandAndOption_asTheCommandDefinitionsSay() throws Exception {
    String page = Files.readString(PAGE);
    int at = page.indexOf(MARKER);
    assertThat(at).as("the marker in " + PAGE).isNotNegative();
    String written = page.substring(0, at + MARKER.length()) + "\n" + CommandReference.markdown();
    if (Boolean.getBoolean("healthmesh.docs.write")) {
      Files.writeString(PAGE, written);
      page = Files.readString(PAGE);
    }
    assertThat(page).as(PAGE + " differs from the command definitions; write it again (see this test's doc)")
        .isEqualTo(written);
  }

  @Test
  void showsTheFallbackOfAnEnvironmentDefault_notTheEnvironmentsValue() {
    String page = CommandReference.markdown();

    assertThat(page).contains("## healthctl status").contains("## healthctl demo fail")
        .contains("`--bootstrap-servers HOST:PORT,...` | Kafka bootstrap servers (default: 127.0.0.1:9092;")
        .doesNotContain("${");
  }
}
