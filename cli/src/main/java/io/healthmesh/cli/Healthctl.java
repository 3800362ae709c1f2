package io.healthmesh.cli;

import io.healthmesh.cli.launch.DemoCommand;
import io.healthmesh.cli.launch.ServeCommand;
import io.healthmesh.cli.launch.XdsCommand;
import io.healthmesh.schemas.KafkaAccess;
import io.healthmesh.schemas.KafkaRefusal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code healthctl}: exit code 0 ok, 1 runtime failure, 2 usage or validation error ({@code diff}: see there). */
@Command(name = "healthctl", mixinStandardHelpOptions = true, version = "healthctl 0.1.0",
    description = "Health-aware DNS routing on Kafka.")
public final class Healthctl implements Callable<Integer> {
  /** Every subcommand, in the order help lists them. */
  static final List<Class<?>> SUBCOMMANDS = List.of(ApplyCommand.Apply.class, ApplyCommand.Validate.class,
      DiffCommand.class, GetCommand.class, StatusCommand.class, DeleteCommand.class, ProbeCommand.class,
      AuditCommand.class, TopicsCommand.class, ServeCommand.Topology.class, ServeCommand.Edge.class,
      ServeCommand.Registry.class, XdsCommand.class, ServeCommand.Haproxy.class, DnssecCommand.class, AclsCommand.class,
      DemoCommand.class, CompletionCommand.class, CdsTraining.class);
  /** Subcommands that read the whole command tree. */
  private static final Set<String> WHOLE_TREE = Set.of("completion", "cds-training");

  public static void main(String[] args) {
    System.exit(commandLine(args).execute(args));
  }

  /** The whole command tree. */
  static CommandLine commandLine() {
    return commandLine(SUBCOMMANDS);
  }

  /**
   * The tree that can run {@code args}: when they start with a subcommand's name, that subcommand
   * alone. Picocli reflects on every option of every command it is given, which was most of a
   * small command's start (docs/benchmarks.md); help, a mistyped name and the commands that read
   * the tree get it whole.
   */
  static CommandLine commandLine(String... args) {
    if (args.length > 0 && !WHOLE_TREE.contains(args[0])) {
      for (Class<?> command : SUBCOMMANDS) {
        if (command.getAnnotation(Command.class).name().equals(args[0])) {
          return commandLine(List.of(command));
        }
      }
    }
    return commandLine();
  }

  private static CommandLine commandLine(List<Class<?>> subcommands) {
    CommandLine cli = new CommandLine(new Healthctl());
    subcommands.forEach(cli::addSubcommand);
    cli.setExecutionExceptionHandler((e, line, parsed) -> {
      line.getErr().println("healthctl: " + KafkaRefusal.of(e).map(r -> refused(r, line)).orElse(e.getMessage()));
      return line.getCommandSpec().userObject() instanceof DiffCommand ? DiffCommand.FAILED : 1;
    });
    return cli;
  }

  /** A broker's refusal, told with the principal and what the command's user needs (CliAccess). */
  private static String refused(RuntimeException refusal, CommandLine line) {
    CommandLine top = line;
    while (top.getParent() != null && top.getParent().getParent() != null) {
      top = top.getParent();
    }
    KafkaAccess access = CliAccess.forCommand(top.getCommandName());
    Map<String, Object> client = Map.of();
    for (CommandLine.Model.CommandSpec mixin : line.getCommandSpec().mixins().values()) {
      if (mixin.userObject() instanceof ClusterOptions options) {
        client = options.client();
      }
    }
    return access == null ? "Kafka refused " + KafkaRefusal.principal(client) + ": " + refusal.getMessage()
        + " (this command needs an administrator's --client-config)" : KafkaRefusal.explain(refusal, access, client);
  }

  @Override
  public Integer call() {
    CommandLine.usage(this, System.out);
    return 2;
  }
}
