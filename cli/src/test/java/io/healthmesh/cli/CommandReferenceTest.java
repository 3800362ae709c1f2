package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
    GeneratedPage.check(PAGE, MARKER, CommandReference.markdown(),
        "mvn -pl cli test -Dtest=CommandReferenceTest -Dhealthmesh.docs.write=true");
  }

  @Test
  void showsTheFallbackOfAnEnvironmentDefault_notTheEnvironmentsValue() {
    String page = CommandReference.markdown();

    assertThat(page).contains("## healthctl status").contains("## healthctl demo fail")
        .contains("`--bootstrap-servers HOST:PORT,...` | Kafka bootstrap servers (default: 127.0.0.1:9092;")
        .doesNotContain("${");
  }
}
