package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** ./healthctl as users run it, on the jar this build made. */
class LauncherIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path ARCHIVE = ROOT.resolve("cli/target/healthctl.jsa");

  private record Run(int exit, String out, String err) {}

  @Test
  void startsFromAClassArchive_madeOnceForTheJar() throws Exception {
    Files.deleteIfExists(ARCHIVE);

    Run first = launch(Map.of(), "--version");
    assertThat(first.exit()).as(first.err()).isZero();
    assertThat(first.out()).isEqualTo("healthctl 0.1.0");
    assertThat(first.err()).contains("archiving healthctl's classes");
    assertThat(ARCHIVE).isNotEmptyFile();

    // HEALTHMESH_JAVA_OPTS replaces the JVM flags, not the archive
    Run second = launch(Map.of("HEALTHMESH_JAVA_OPTS", "-Xlog:class+load=info"), "--version");
    assertThat(second.exit()).isZero();
    assertThat(second.err()).doesNotContain("archiving");
    assertThat(second.out()).contains("io.healthmesh.cli.Healthctl source: shared objects file",
        "io.healthmesh.cli.StatusCommand source: shared objects file", "healthctl 0.1.0");
  }

  @Test
  void askForTransparentHugePages_whenTheKernelOffersThem() throws Exception {
    Path setting = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
    String offered = Files.exists(setting) ? Files.readString(setting) : "(no transparent huge pages here)";
    boolean expected = offered.contains("[madvise]") || offered.contains("[always]");
    // the JVM reads JAVA_TOOL_OPTIONS beside the launcher's flags, and prints its flags' values
    Map<String, String> printFlags = Map.of("JAVA_TOOL_OPTIONS", "-XX:+PrintFlagsFinal");

    Run command = launch(printFlags, "--version");
    Run server = launch(printFlags, "topology", "--help");

    assertThat(command.exit()).as(command.err()).isZero();
    assertThat(hugePages(command.out())).as(offered).isEqualTo(expected);
    assertThat(hugePages(server.out())).as("a server's memory is its operator's to tune").isFalse();
  }

  @Test
  void runCommandsWithAFixedYoungGeneration_inAHeapThatStartsLarge_andOneQuickCompiler() throws Exception {
    Map<String, String> printFlags = Map.of("JAVA_TOOL_OPTIONS", "-XX:+PrintFlagsFinal");

    // get keeps what it reads (docs/benchmarks.md, "Reading past what was replaced")
    Map<String, Integer> youngMegabytes = Map.of("--version", 32, "get", 128, "status", 32, "validate", 64, "apply", 64);
    for (Map.Entry<String, Integer> command : youngMegabytes.entrySet()) {
      Run run = command.getKey().startsWith("--") ? launch(printFlags, command.getKey())
          : launch(printFlags, command.getKey(), "--help");
      assertThat(run.exit()).as(run.err()).isZero();
      assertThat(flag(run.out(), "UseParallelGC")).as(command.getKey()).isEqualTo("true");
      assertThat(flag(run.out(), "MaxNewSize")).as(command.getKey()).isEqualTo(String.valueOf(command.getValue() << 20));
      assertThat(flag(run.out(), "InitialRAMPercentage")).as(command.getKey()).startsWith("4.0");
      assertThat(flag(run.out(), "TieredStopAtLevel")).as(command.getKey()).isEqualTo("1");
      if (Runtime.getRuntime().availableProcessors() <= 2) {
        assertThat(flag(run.out(), "CICompilerCount")).as(command.getKey() + " on two cores").isEqualTo("1");
      }
    }
    Run server = launch(printFlags, "topology", "--help");
    assertThat(flag(server.out(), "UseParallelGC")).as("a server keeps the JVM's collector").isEqualTo("false");
    assertThat(flag(server.out(), "InitialRAMPercentage")).startsWith("1.5");
    assertThat(flag(server.out(), "TieredStopAtLevel")).as("a server compiles its hot code fully").isEqualTo("4");
  }

  private static boolean hugePages(String flags) {
    return flag(flags, "UseTransparentHugePages").equals("true");
  }

  /** A flag's value as -XX:+PrintFlagsFinal prints it: "type name = value {origin}". */
  private static String flag(String flags, String name) {
    String line = flags.lines().filter(l -> l.contains(" " + name + " ")).findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " in " + flags));
    return line.substring(line.indexOf('=') + 1).trim().split("\\s+")[0];
  }

  private static Run launch(Map<String, String> env, String... args) throws Exception {
    ProcessBuilder builder = new ProcessBuilder();
    builder.command().add(ROOT.resolve("healthctl").toString());
    builder.command().addAll(List.of(args));
    builder.environment().putAll(env);
    Path err = Files.createTempFile("launcher", ".err");
    Process p = builder.redirectError(err.toFile()).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor(3, TimeUnit.MINUTES)).isTrue();
    return new Run(p.exitValue(), out, Files.readString(err));
  }
}
