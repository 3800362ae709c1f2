package io.healthmesh.cli.launch;

import io.healthmesh.cli.ClusterOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Run broker, registry, topology, two DNS edges, the xDS server with a backend per region and a"
      + " probe simulator in this process.",
    subcommands = {DemoCommand.FailCommand.class, DemoCommand.HealCommand.class})
public final class DemoCommand implements Callable<Integer> {
  @Option(names = "--data-dir", defaultValue = "data/demo", description = "Where the demo keeps its data (default: ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(names = "--fresh", description = "Forget the previous run's data and start over.")
  boolean fresh;

  @Option(names = "--dns-ports", split = ",", defaultValue = "5353,5354",
      description = "UDP/TCP ports of the us-east1 and europe-west1 edges (default: ${DEFAULT-VALUE}).")
  List<Integer> dnsPorts;

  @Option(names = "--metrics-port", defaultValue = "9401", description = "First metrics port: topology, edge us-east1,"
      + " edge europe-west1 and registry on it and the next three, the xDS server on the sixth (the fifth is probe"
      + " run's); 0 picks free ones (default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(names = "--xds-port", defaultValue = "18000", description = "xDS server port (default: ${DEFAULT-VALUE}).")
  int xdsPort;

  @Option(names = "--kafka-port", defaultValue = "9092", description = "Kafka broker port (default: ${DEFAULT-VALUE}).")
  int kafkaPort;

  @Option(names = "--registry-port", defaultValue = "8081", description = "Schema registry port (default: ${DEFAULT-VALUE}).")
  int registryPort;

  @Option(names = "--no-simulator", description = "Do not simulate probes of the sample services; publish your own.")
  boolean noSimulator;

  @Override
  public Integer call() throws Exception {
    if (dnsPorts.size() != SampleConfig.REGIONS.size()) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--dns-ports takes "
          + SampleConfig.REGIONS.size() + " ports, one per edge");
    }
    System.out.println("starting the healthmesh demo ...");
    Demo demo = Demo.start(dataDir.toAbsolutePath(), fresh, new Demo.Ports(kafkaPort, registryPort, dnsPorts, metricsPort, xdsPort),
        !noSimulator);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("\nstopping the demo ...");
      demo.close();
      stopped.countDown();
    }, "demo-shutdown"));
    System.out.println(demo.banner());
    stopped.await();
    return 0;
  }

  /**
   * What {@code demo fail} and {@code demo heal} share: they reach the running demo through its
   * Kafka (the cluster options' default is the demo's), and fail (exit 1) when none runs there.
   */
  abstract static class FaultCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    ClusterOptions cluster;

    @Parameters(paramLabel = "TARGET", description = "orders-use1, orders-euw1, one endpoint such as orders-use1/vm-1"
        + " (heal also takes all)")
    String target;

    @CommandLine.Option(names = "--from", paramLabel = "REGION", description = "Only the demo's prober in this region"
        + " (us-east1, europe-west1) sees it: a partition that the other prober outvotes (R-PQ-2).")
    String from;

    @Override
    public Integer call() {
      if (from != null) {
        if (!SampleConfig.REGIONS.contains(from)) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--from takes one of the demo's regions "
              + SampleConfig.REGIONS + ", not '" + from + "'");
        }
        if (target.equals("all")) {
          throw new CommandLine.ParameterException(spec.commandLine(), "'all' takes no --from");
        }
        target = target + Faults.FROM + from;
      }
      Set<String> failing = Faults.change(cluster.client(), cluster.registry(), this::edit);
      spec.commandLine().getOut().println(done(target) + (failing.isEmpty() ? "; nothing fails now"
          : "; failing now: " + String.join(", ", failing)));
      spec.commandLine().getOut().flush();
      return 0;
    }

    abstract void edit(Set<String> failing);

    abstract String done(String target);
  }

  @Command(name = "fail", mixinStandardHelpOptions = true,
      description = "Make the running demo's probes fail for a backend service or one endpoint.")
  static final class FailCommand extends FaultCommand {
    @Override
    void edit(Set<String> failing) {
      failing.add(target);
    }

    @Override
    String done(String target) {
      if (target.contains(Faults.FROM)) {
        return target + ": that prober alone sees it fail; the other outvotes it, so nothing moves (R-PQ-2)";
      }
      return target + " now fails its health checks; watch dig, and healthctl xds watch orders-global, move to the"
          + " other region";
    }
  }

  @Command(name = "heal", mixinStandardHelpOptions = true, description = "Undo 'demo fail'.")
  static final class HealCommand extends FaultCommand {
    @Override
    void edit(Set<String> failing) {
      if (target.equals("all")) {
        failing.clear();
      } else {
        failing.remove(target);
      }
    }

    @Override
    String done(String target) {
      return target + " healthy again";
    }
  }
}
