package io.healthmesh.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code healthctl} commands run from the packaged jar, each in its own JVM, as operators run them. */
final class Processes implements AutoCloseable {
  private static final Path JAR = Path.of("target/healthctl.jar").toAbsolutePath();
  private final List<Process> processes = new ArrayList<>();

  /** What a process printed before it ended, and how it ended. */
  record Ended(int exit, String output) {}

  /** Starts {@code healthctl args} in a new JVM and waits for the line that says it is up. */
  Matcher start(Pattern banner, String... args) throws Exception {
    Lines lines = launch(args);
    StringBuilder seen = new StringBuilder();
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < deadline) {
      String line = lines.queue.poll(200, TimeUnit.MILLISECONDS);
      if (line != null) {
        seen.append(line).append('\n');
        Matcher m = banner.matcher(line);
        if (m.find()) {
          return m;
        }
      } else if (!lines.process.isAlive()) {
        break;
      }
    }
    throw new AssertionError("healthctl " + String.join(" ", args) + " did not start:\n" + seen);
  }

  /** Runs {@code healthctl args} in a new JVM that is expected to end by itself within {@code timeout}. */
  Ended runToEnd(Duration timeout, String... args) throws Exception {
    Lines lines = launch(args);
    if (!lines.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      lines.process.destroyForcibly();
      throw new AssertionError("healthctl " + String.join(" ", args) + " still runs after " + timeout + ":\n"
          + String.join("\n", lines.queue));
    }
    lines.reader.join(5_000);
    return new Ended(lines.process.exitValue(), String.join("\n", lines.queue));
  }

  private record Lines(Process process, BlockingQueue<String> queue, Thread reader) {}

  private Lines launch(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
        "-Xmx256m", "-jar", JAR.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    processes.add(process);
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          lines.add(line);
        }
      } catch (java.io.IOException e) {
        // the process ended
      }
    });
    reader.setDaemon(true);
    reader.start();
    return new Lines(process, lines, reader);
  }

  /** SIGTERM to every process still running (each closes cleanly), then SIGKILL to what lingers. */
  @Override
  public void close() throws InterruptedException {
    processes.forEach(Process::destroy);
    for (Process p : processes) {
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }
}
