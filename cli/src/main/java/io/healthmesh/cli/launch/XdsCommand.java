package io.healthmesh.cli.launch;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.healthmesh.xds.Bootstrap;
import io.healthmesh.xds.RegionService;
import io.healthmesh.xds.XdsMain;
import io.healthmesh.xds.XdsSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code healthctl xds}: runs the xDS server as its own process; {@code bootstrap} prints what a
 * client needs to reach it, {@code watch} is a proxyless gRPC client that shows where calls go.
 */
@Command(name = "xds", mixinStandardHelpOptions = true,
    description = "Run the xDS server (Envoy and proxyless gRPC load balancing on composite health) as its own process.",
    subcommands = {XdsCommand.BootstrapCommand.class, XdsCommand.WatchCommand.class})
public final class XdsCommand extends ServeCommand {
  XdsCommand() {
    super(XdsSettings.BOOTSTRAP_SERVERS, XdsSettings.SCHEMA_REGISTRY_URL, XdsSettings.KAFKA_PREFIX, XdsMain::main);
  }

  @Command(name = "bootstrap", mixinStandardHelpOptions = true,
      description = "Print a bootstrap file for gRPC (GRPC_XDS_BOOTSTRAP) or Envoy (--envoy).")
  static final class BootstrapCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--server", split = ",", defaultValue = "127.0.0.1:18000",
        description = "xDS servers, HOST:PORT,... (default: ${DEFAULT-VALUE}).")
    List<String> servers;

    @Option(names = "--node-id", defaultValue = "healthmesh-client", description = "The client's node id (default: ${DEFAULT-VALUE}).")
    String nodeId;

    @Option(names = "--envoy", description = "Envoy's bootstrap (YAML) instead of gRPC's (JSON).")
    boolean envoy;

    @Option(names = "--listen", paramLabel = "SERVICE=PORT", split = ",",
        description = "With --envoy: a listener on 127.0.0.1:PORT for each consumer backend service.")
    List<String> listeners = new ArrayList<>();

    @Override
    public Integer call() {
      for (String s : servers) {
        if (!s.matches("[^:\\s]+:\\d{1,5}")) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--server: '" + s + "' is not HOST:PORT");
        }
      }
      for (String l : listeners) {
        if (!l.matches("[^=\\s]+=\\d{1,5}")) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--listen: '" + l + "' is not SERVICE=PORT");
        }
      }
      PrintWriter out = spec.commandLine().getOut();
      out.print(envoy ? Bootstrap.envoy(servers, nodeId, listeners) : Bootstrap.grpc(servers, nodeId));
      out.flush();
      return 0;
    }
  }

  @Command(name = "watch", mixinStandardHelpOptions = true,
      description = "Call a consumer backend service through gRPC's own xDS client (xds:///SERVICE), as a proxyless"
          + " gRPC application does, and print which region answers each second.")
  static final class WatchCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "SERVICE", description = "The consumer backend service, e.g. orders-global.")
    String service;

    @Option(names = "--server", defaultValue = "127.0.0.1:18000", description = "The xDS server (default: ${DEFAULT-VALUE}).")
    String server;

    @Option(names = "--count", defaultValue = "0", description = "Stop after this many seconds; 0 runs until Ctrl-C.")
    int count;

    @Option(names = "--interval-ms", defaultValue = "100", description = "Pause between calls (default: ${DEFAULT-VALUE}).")
    int intervalMs;

    @Override
    public Integer call() throws IOException, InterruptedException {
      Path bootstrap = Files.createTempFile("healthctl-grpc-xds", ".json");
      bootstrap.toFile().deleteOnExit();
      Files.writeString(bootstrap, Bootstrap.grpc(List.of(server), "healthctl-watch"));
      // What GRPC_XDS_BOOTSTRAP does for an application, for this process only.
      System.setProperty("io.grpc.xds.bootstrap", bootstrap.toString());
      PrintWriter out = spec.commandLine().getOut();
      ManagedChannel channel = ManagedChannelBuilder.forTarget("xds:///" + service).usePlaintext().build();
      try {
        try {
          // The first call waits for the xDS server's first answer, so that the first line is not its wait.
          RegionService.which(channel, 15_000, true);
        } catch (StatusRuntimeException e) {
          out.println("no answer yet from " + service + " through " + server + ": " + e.getStatus());
        }
        for (int second = 0; count == 0 || second < count; second++) {
          Map<String, Integer> answers = new TreeMap<>();
          long end = System.nanoTime() + 1_000_000_000L;
          while (System.nanoTime() < end) {
            String answer;
            try {
              answer = RegionService.which(channel, 1_000);
            } catch (StatusRuntimeException e) {
              answer = e.getStatus().getCode() + (e.getStatus().getDescription() == null ? ""
                  : " (" + e.getStatus().getDescription() + ")");
            }
            answers.merge(answer, 1, Integer::sum);
            Thread.sleep(intervalMs);
          }
          out.println(LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + "  " + service + " -> " + answers);
          out.flush();
        }
      } finally {
        channel.shutdownNow();
      }
      return 0;
    }
  }
}
