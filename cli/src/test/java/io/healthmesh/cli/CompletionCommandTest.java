package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The completion script, sourced by real bash and zsh, completes what the commands define. */
class CompletionCommandTest {
  @TempDir
  static Path dir;
  static Path script;

  @BeforeAll
  static void generate() throws IOException {
    StringWriter out = new StringWriter();
    assertThat(Healthctl.commandLine().setOut(new PrintWriter(out)).execute("completion", "bash")).isZero();
    script = Files.writeString(dir.resolve("healthctl.bash"), out.toString());
  }

  @Test
  void completesCommandsOptionsAndValues_inBash() throws Exception {
    assertThat(complete("healthctl", "sta")).isEqualTo("status");
    assertThat(complete("healthctl", "comp")).isEqualTo("completion");
    assertThat(complete("healthctl", "status", "--ki")).isEqualTo("--kind");
    assertThat(complete("healthctl", "status", "-o", "")).isEqualTo("table json");
    assertThat(complete("healthctl", "audit", "state")).isEqualTo("state-at");
    assertThat(complete("healthctl", "completion", "")).isEqualTo("bash zsh");
  }

  @Test
  void hidesTheLaunchersTrainingRun() throws Exception {
    assertThat(complete("healthctl", "cds")).isEmpty();
  }

  @Test
  void registersWithZshsCompletion_throughItsBashEmulation() throws Exception {
    assertThat(run("zsh", "-c", "source " + script + "; print -r -- \"${_comps[healthctl]}\""))
        .contains("_complete_healthctl");
  }

  /** What bash offers after {@code words}, the last being the word completed. */
  private static String complete(String... words) throws Exception {
    StringBuilder array = new StringBuilder();
    for (String w : words) {
      array.append(" '").append(w).append('\'');
    }
    return run("bash", "-c", "source " + script + " 2>/dev/null; COMP_WORDS=(" + array + "); COMP_CWORD="
        + (words.length - 1) + "; COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}; _complete_healthctl"
        + " 2>/dev/null; echo \"${COMPREPLY[*]}\"");
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
  }
}
