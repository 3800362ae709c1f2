package io.healthmesh.cli;

import io.healthmesh.cli.launch.DemoCommand;
import io.healthmesh.cli.launch.ServeCommand;
import io.healthmesh.cli.launch.XdsCommand;
import io.healthmesh.schemas.KafkaAccess;
import io.healthmesh.schemas.KafkaRefusal;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code healthctl}: exit code 0 ok, 1 runtime failure, 2 usage or validation error ({@code diff}: see there). */
@Command(name = "healthctl", mixinStandardHelpOptions = true, version = "healthctl 0.1.0",
    description = "Health-aware DNS routing on Kafka.", subcommands = {ApplyCommand.Apply.class, ApplyCommand.Validate.class, DiffCommand.class, GetCommand.class, StatusCommand.class, DeleteCommand.class,
        ProbeCommand.class, AuditCommand.class, TopicsCommand.class, ServeCommand.Topology.class, ServeCommand.Edge.class, ServeCommand.Registry.class,
        XdsCommand.class, ServeCommand.Haproxy.class, DnssecCommand.class, AclsCommand.class,
        DemoCommand.class, CompletionCommand.class, CdsTraining.class})
public final class Healthctl implements Callable<Integer> {

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Healthctl());
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
