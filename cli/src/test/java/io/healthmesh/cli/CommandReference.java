package io.healthmesh.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The command reference of docs/commands.md, written from healthctl's command definitions: every
 * command and subcommand with its synopsis, description, parameters and options. Variables are
 * not looked up, so the page does not depend on the environment it is written in: an option whose
 * default comes from the environment shows its fallback. {@code CommandReferenceTest} fails when the
 * committed page differs.
 */
final class CommandReference {
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{(?:env|sys):([A-Za-z0-9_.]+):-([^}]*)}");

  private CommandReference() {}

  static String markdown() {
    CommandLine root = Healthctl.commandLine();
    root.setInterpolateVariables(false);
    StringBuilder out = new StringBuilder();
    command(out, root);
    return out.toString();
  }

  private static void command(StringBuilder out, CommandLine line) {
    CommandSpec spec = line.getCommandSpec();
    out.append("## ").append(spec.qualifiedName()).append("\n\n");
    out.append(text(String.join(" ", spec.usageMessage().description()))).append("\n\n");
    // The synopsis names options and labels only: nothing in it comes from the environment.
    spec.interpolateVariables(true);
    CommandLine.Help help = new CommandLine.Help(spec, CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
    out.append("```\n").append(help.synopsis(0).strip()).append("\n```\n\n");
    spec.interpolateVariables(false);
    List<String[]> rows = new ArrayList<>();
    for (PositionalParamSpec p : spec.positionalParameters()) {
      if (!p.hidden()) {
        rows.add(new String[] {p.paramLabel(), describe(p)});
      }
    }
    for (OptionSpec o : spec.options()) {
      if (!o.hidden() && !o.usageHelp() && !o.versionHelp()) {
        String label = o.typeInfo().isBoolean() ? "" : " " + o.paramLabel();
        rows.add(new String[] {String.join(", ", o.names()) + label, describe(o)});
      }
    }
    if (!rows.isEmpty()) {
      out.append("| parameter | meaning |\n|---|---|\n");
      rows.forEach(r -> out.append("| `").append(cell(r[0])).append("` | ").append(cell(r[1])).append(" |\n"));
      out.append("\n");
    }
    for (CommandLine sub : spec.subcommands().values()) {
      if (!sub.getCommandSpec().usageMessage().hidden()) {
        command(out, sub);
      }
    }
  }

  private static String describe(ArgSpec arg) {
    String description = String.join(" ", arg.description());
    String fallback = arg.defaultValue() == null ? null : fallback(arg.defaultValue());
    description = description.replace("${DEFAULT-VALUE}", fallback == null ? "none" : fallback);
    Iterable<String> candidates = arg.completionCandidates();
    if (candidates != null) {
      List<String> all = new ArrayList<>();
      candidates.forEach(all::add);
      description = description.replace("${COMPLETION-CANDIDATES}", String.join(", ", all));
    }
    return text(description);
  }

  /** {@code ${env:NAME:-value}} as {@code value}: what the option is when the variable is not set. */
  private static String fallback(String value) {
    Matcher m = VARIABLE.matcher(value);
    return m.replaceAll(r -> Matcher.quoteReplacement(r.group(2)));
  }

  private static String text(String text) {
    return fallback(text).replace("${ROOT-COMMAND-NAME}", "healthctl");
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }
}
