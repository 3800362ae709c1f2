package io.healthmesh.tests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Other people's programs (Confluent's Python client, kcat), run as a user would run them. */
final class Commands {
  static final String PYTHON = "/usr/bin/python3";
  static final Path INTEROP_SCRIPT = Path.of("src/test/python/confluent_interop.py");

  private Commands() {}

  /** Runs the interoperability script; returns its last line of output. */
  static String python(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(PYTHON, INTEROP_SCRIPT.toString()));
    command.addAll(List.of(args));
    return run(command, 90).lines().reduce((a, b) -> b).orElse("");
  }

  /** Runs {@code command}; returns its output, or fails the test with it when the exit code is not 0. */
  static String run(List<String> command, int seconds) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(command + " did not finish in " + seconds + " s");
    }
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new AssertionError(command + " exited " + process.exitValue() + ":\n" + out);
    }
    return out.strip();
  }
}
