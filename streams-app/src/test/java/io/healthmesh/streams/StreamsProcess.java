package io.healthmesh.streams;

import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.SchemaRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The topology as its own process ({@link StreamsMain}), so that a test can SIGKILL it. */
final class StreamsProcess {
  private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

  private StreamsProcess() {}

  /** Starts it and returns once it runs; its output goes to {@code log}, whole, when it ends. */
  static Process start(EmbeddedKafka kafka, SchemaRegistry registry, String applicationId, Path stateDir, Path log,
      String... settings) throws Exception {
    List<String> command = new ArrayList<>(List.of(JAVA, "-cp", System.getProperty("java.class.path"),
        StreamsMain.class.getName(), "bootstrap.servers=" + kafka.bootstrapServers(),
        "schema.registry.url=" + registry.url(), "application.id=" + applicationId, "state.dir=" + stateDir,
        "metrics.port=0"));
    command.addAll(List.of(settings));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    List<String> lines = new ArrayList<>();
    String line;
    while ((line = out.readLine()) != null) {
      lines.add(line);
      if (line.contains("running against")) {
        Thread copier = new Thread(() -> drain(out, log, lines));
        copier.setDaemon(true);
        copier.start();
        return process;
      }
    }
    throw new AssertionError("streams app exited before running:\n" + String.join("\n", lines));
  }

  private static void drain(BufferedReader out, Path log, List<String> lines) {
    try {
      String line;
      while ((line = out.readLine()) != null) {
        lines.add(line);
      }
    } catch (java.io.IOException e) {
      // the process was killed
    }
    try {
      // Whole or not at all, so a test that waits for the log never reads half of it.
      Path partial = log.resolveSibling(log.getFileName() + ".partial");
      Files.write(partial, lines);
      Files.move(partial, log, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (java.io.IOException e) {
      // best effort
    }
  }
}
