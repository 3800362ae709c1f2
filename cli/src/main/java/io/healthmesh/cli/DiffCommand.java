package io.healthmesh.cli;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import io.healthmesh.cli.config.Catalog;
import io.healthmesh.cli.config.Change;
import io.healthmesh.cli.config.Resource;
import java.io.PrintWriter;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import picocli.CommandLine.Command;

/**
 * {@code diff}: what {@code apply} of the same files would change, as a unified diff of each
 * resource's YAML (as {@code get -o yaml} prints it) against the version in force. Exit codes are
 * kubectl diff's and diff(1)'s, so scripts can gate on them.
 */
@Command(name = "diff", mixinStandardHelpOptions = true, description = {
    "Show what apply -f would change: a unified diff of each resource's YAML against the version in force.",
    "Nothing is written. Files are checked as apply checks them.",
    "Exit code: 0 nothing would change, 1 something would, 2 invalid files or usage, " + DiffCommand.FAILED
        + " the cluster could not be read."})
final class DiffCommand extends ApplyCommand {
  /** diff(1) and kubectl diff use 1 for "differences", so a failure needs another code. */
  static final int FAILED = 3;
  private static final int CONTEXT = 3;

  @Override
  boolean online() {
    return true;
  }

  @Override
  boolean write() {
    return false;
  }

  @Override
  int report(PrintWriter out, Catalog current, List<Change> plan) {
    printInOrder(out, plan.size(), i -> text(current, plan.get(i)));
    return plan.stream().anyMatch(c -> c.action() != Change.Action.UNCHANGED) ? 1 : 0;
  }

  /** A change as the lines of its diff, each with its line end; called side by side. */
  private static String text(Catalog current, Change change) {
    Resource r = change.resource();
    String name = r.kind().kindName() + "/" + r.key();
    StringBuilder text = new StringBuilder();
    switch (change.action()) {
      case UNCHANGED -> { }
      case REPAIRED -> text.append("# ").append(name).append(": unchanged, but written again: its latest record could"
          + " not be read").append(System.lineSeparator());
      default -> {
        SpecificRecord stored = current.get(r.kind(), r.key());
        List<String> before = stored == null ? List.of() : yaml(r, stored);
        List<String> after = r.value() == null ? List.of() : yaml(r, r.value());
        for (String line : UnifiedDiffUtils.generateUnifiedDiff(stored == null ? "/dev/null" : name + " (in force)",
            r.value() == null ? "/dev/null" : name + " (" + r.origin() + ")", before, DiffUtils.diff(before, after),
            CONTEXT)) {
          // An empty side starts at line 0, as diff -u and patch have it; the library says 1.
          text.append(line.startsWith("@@ ") ? line.replace(" -1,0 ", " -0,0 ").replace(" +1,0 ", " +0,0 ") : line)
              .append(System.lineSeparator());
        }
      }
    }
    return text.toString();
  }

  private static List<String> yaml(Resource r, SpecificRecord value) {
    return GetCommand.yaml(r.kind(), value).lines().toList();
  }
}
