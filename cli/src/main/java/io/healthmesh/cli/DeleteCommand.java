package io.healthmesh.cli;

import io.healthmesh.cli.config.Catalog;
import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.config.Resource;
import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.cli.config.ResourceReader;
import io.healthmesh.cli.config.Validator;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code delete}: write tombstones, all in one transaction, refusing when a remaining resource
 * still refers to a deleted one.
 */
@Command(name = "delete", mixinStandardHelpOptions = true, description = {
    "Delete resources by kind and name, or those a file declares (-f), in one transaction.",
    "Refused when a resource that stays would refer to a deleted one: delete both together."})
final class DeleteCommand implements Callable<Integer> {
  @Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClusterOptions cluster;

  @Parameters(arity = "0..*", paramLabel = "KIND NAME...", description = "A kind, then one or more names.")
  List<String> args = new ArrayList<>();

  @Option(names = {"-f", "--filename"}, paramLabel = "FILE|DIR|-", description = "Delete what these files declare.")
  List<String> files = new ArrayList<>();

  @Option(names = "--ignore-not-found", description = "Succeed when a resource does not exist.")
  boolean ignoreNotFound;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    List<Resource.Ref> refs = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    if (!files.isEmpty()) {
      ResourceReader.Read read = ResourceReader.load(files, System.in);
      problems.addAll(read.problems());
      read.resources().forEach(r -> refs.add(r.ref()));
    }
    if (!args.isEmpty()) {
      ResourceKind kind = ResourceKind.parse(args.get(0)).orElseThrow(() -> new CommandLine.ParameterException(
          spec.commandLine(), "unknown kind '" + args.get(0) + "'; kinds: " + ResourceKind.names()));
      if (args.size() < 2) {
        throw new CommandLine.ParameterException(spec.commandLine(), "name the " + kind.kindName() + " to delete");
      }
      args.subList(1, args.size()).forEach(n -> refs.add(new Resource.Ref(kind, n)));
    }
    if (refs.isEmpty() && problems.isEmpty()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "give KIND NAME... or -f FILE");
    }
    List<String> warnings = new ArrayList<>();
    ConfigTopics topics = new ConfigTopics(cluster.client(), cluster.registry());
    Catalog current = topics.read(warnings);
    warnings.forEach(w -> err.println("warning: " + w));
    List<Resource> tombstones = new ArrayList<>();
    boolean missing = false;
    for (Resource.Ref ref : refs) {
      if (current.get(ref.kind(), ref.key()) == null) {
        missing = true;
        err.println(ref + " not found");
      } else {
        tombstones.add(new Resource(ref.kind(), ref.key(), null, ref.toString()));
      }
    }
    problems.addAll(Validator.check(current, tombstones));
    if (!problems.isEmpty()) {
      problems.forEach(err::println);
      err.println(problems.size() + " problem(s); nothing was deleted");
      return 2;
    }
    if (missing && !ignoreNotFound) {
      err.println("nothing was deleted");
      return 1;
    }
    topics.write(tombstones);
    tombstones.forEach(t -> spec.commandLine().getOut().println(t.ref() + " deleted"));
    spec.commandLine().getOut().flush();
    return 0;
  }
}
