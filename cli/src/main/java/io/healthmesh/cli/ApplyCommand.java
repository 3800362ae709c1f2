package io.healthmesh.cli;

import io.healthmesh.cli.config.Catalog;
import io.healthmesh.cli.config.Change;
import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.config.Resource;
import io.healthmesh.cli.config.ResourceReader;
import io.healthmesh.cli.config.Validator;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code apply} and {@code validate}: read the files, check them against docs/rules.md and the stored
 * configuration, and (for apply) write what changed in one transaction.
 */
abstract class ApplyCommand implements Callable<Integer> {
  /** Items whose texts {@link #printInOrder} makes side by side before printing them. */
  private static final int CHUNK = 4096;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Mixin
  ClusterOptions cluster;

  @Option(names = {"-f", "--filename"}, required = true, paramLabel = "FILE|DIR|-",
      description = "YAML or JSON documents; a directory takes its .yaml, .yml and .json files; - reads stdin.")
  List<String> files;

  @Option(names = "--timings", description = "Print to stderr how long each step took.")
  boolean timings;

  /** Whether to check against the stored configuration (false: the files alone must be complete). */
  abstract boolean online();

  /** Whether to write the changes. */
  abstract boolean write();

  /** Runs before the stored configuration is read. */
  void prepare(ConfigTopics topics) throws InterruptedException {}

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Timings steps = new Timings(timings);
    List<String> warnings = new ArrayList<>();
    ConfigTopics topics = online() ? new ConfigTopics(cluster.client(), cluster.registry()) : null;
    // Creating missing topics and reading the stored configuration wait on the brokers, reading
    // the files on the CPU: side by side. An apply that is then refused leaves the topics it
    // created, empty, as a topology starting would have.
    Background<Catalog> stored = Background.start("read-stored-configuration", () -> {
      if (write()) {
        prepare(topics);
      }
      return online() ? topics.read(warnings) : new Catalog();
    });
    ResourceReader.Read read = ResourceReader.load(files, System.in);
    steps.step("files (" + read.resources().size() + " resources)");
    List<String> problems = new ArrayList<>(read.problems());
    Catalog current = stored.join();
    steps.step("topics and stored configuration (" + current.size() + " resources; the rest of their time beside"
        + " the files)");
    warnings.forEach(w -> err.println("warning: " + w));
    problems.addAll(Validator.check(current, read.resources()));
    List<String> cautions = Validator.warnings(read.resources());
    print(err, cautions.stream().map(w -> "warning: " + w));
    if (!cautions.isEmpty()) {
      err.println(cautions.size() + " warning(s)");
    }
    if (!problems.isEmpty()) {
      print(err, problems.stream());
      err.println(problems.size() + " problem(s); nothing was " + (write() ? "applied" : "changed"));
      return 2;
    }
    steps.step("checks");
    List<Change> plan = Change.plan(current, read.resources());
    List<Resource> changed = plan.stream().filter(c -> c.action() != Change.Action.UNCHANGED)
        .map(Change::resource).toList();
    if (write()) {
      topics.write(changed);
      steps.step("write (" + changed.size() + " records in one transaction)");
    }
    int exit = report(out, current, plan);
    out.flush();
    steps.step("output");
    steps.print(err);
    return exit;
  }

  /** Prints what was (or would be) done; returns the exit code. */
  int report(PrintWriter out, Catalog current, List<Change> plan) {
    if (write()) {
      print(out, plan.stream().map(Change::toString));
    } else {
      print(out, plan.stream().map(c -> c.resource().ref() + (online() ? " valid, would be " + c.action().word() : " valid")));
    }
    return 0;
  }

  /** One write for all lines: the writer flushes at every line, and an apply can have 100,000. */
  static void print(PrintWriter out, Stream<String> lines) {
    StringBuilder text = new StringBuilder();
    lines.forEach(line -> text.append(line).append(System.lineSeparator()));
    out.print(text);
  }

  /**
   * The texts of {@code count} items, made side by side a chunk at a time and printed in their
   * order, one write per chunk. Writing 100,000 resources as YAML or as diffs is mostly the
   * emitter's time, one document after another (docs/benchmarks.md, "Reading past what was
   * replaced"); chunks keep a few thousand texts at a time, not the whole output.
   */
  static void printInOrder(PrintWriter out, int count, IntFunction<String> text) {
    for (int from = 0; from < count; from += CHUNK) {
      StringBuilder chunk = new StringBuilder();
      IntStream.range(from, Math.min(count, from + CHUNK)).parallel().mapToObj(text).toList().forEach(chunk::append);
      out.print(chunk);
    }
  }

  @Command(name = "apply", mixinStandardHelpOptions = true, description = {
      "Create or update resources from YAML/JSON files, all or nothing.",
      "Every document is checked first (rules and references); one problem rejects the whole apply.",
      "Applying the same files twice changes nothing."})
  static final class Apply extends ApplyCommand {
    @Option(names = "--partitions", defaultValue = "3",
        description = "Partitions of topics that do not exist yet; match probe-results (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--replication-factor", defaultValue = "1",
        description = "Replication factor of topics that do not exist yet (default: ${DEFAULT-VALUE}).")
    short replicationFactor;

    @Override
    void prepare(ConfigTopics topics) throws InterruptedException {
      topics.ensureTopics(partitions, replicationFactor, CliAccess.applier().topics());
    }

    @Override
    boolean online() {
      return true;
    }

    @Override
    boolean write() {
      return true;
    }
  }

  @Command(name = "validate", mixinStandardHelpOptions = true, description = {
      "Check files as apply would, without writing anything.",
      "With --offline the files are checked alone, so every name they refer to must be in them."})
  static final class Validate extends ApplyCommand {
    @Option(names = "--offline", description = "Do not contact the cluster.")
    boolean offline;

    @Override
    boolean online() {
      return !offline;
    }

    @Override
    boolean write() {
      return false;
    }
  }
}
