package io.healthmesh.cli;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * How long each step of a command took ({@code --timings}), counted from the JVM's start so that
 * start-up shows too; printed to stderr, so that the command's output stays as it is.
 */
final class Timings {
  private final boolean on;
  private final List<String> steps = new ArrayList<>();
  private long last = ManagementFactory.getRuntimeMXBean().getStartTime();

  Timings(boolean on) {
    this.on = on;
    step("start-up");
  }

  /** The step that just ended. */
  void step(String name) {
    long now = System.currentTimeMillis();
    steps.add(String.format("%s %.2f s", name, (now - last) / 1e3));
    last = now;
  }

  void print(PrintWriter err) {
    if (on) {
      err.println("timings: " + String.join(", ", steps) + String.format("; %.2f s in all",
          (System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime()) / 1e3));
      err.flush();
    }
  }
}
