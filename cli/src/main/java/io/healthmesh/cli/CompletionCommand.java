package io.healthmesh.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code completion}: a shell completion script generated from the command definitions, so it
 * knows every command, option and enum value of this build. picocli's script serves bash, and zsh
 * through its bash-completion emulation, which the script turns on itself.
 */
@Command(name = "completion", mixinStandardHelpOptions = true, description = {
    "Print a completion script for bash or zsh: commands, options and their values.",
    "Load it with: source <(healthctl completion bash), or zsh in ~/.zshrc."})
final class CompletionCommand implements Callable<Integer> {
  enum Shell { bash, zsh }

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "SHELL", description = "bash or zsh.")
  Shell shell;

  @Override
  public Integer call() {
    spec.commandLine().getOut().print(AutoComplete.bash("healthctl", spec.root().commandLine()));
    spec.commandLine().getOut().flush();
    return 0;
  }
}
