package io.healthmesh.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Spec;

/** A command that only groups subcommands: called alone, it prints its usage and exits 2. */
abstract class CommandGroup implements Callable<Integer> {
  @Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return 2;
  }
}
