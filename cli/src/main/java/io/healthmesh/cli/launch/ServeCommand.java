package io.healthmesh.cli.launch;

import io.healthmesh.cli.ClusterOptions;
import io.healthmesh.edge.EdgeMain;
import io.healthmesh.edge.EdgeSettings;
import io.healthmesh.haproxy.HaproxyMain;
import io.healthmesh.haproxy.HaproxySettings;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistryMain;
import io.healthmesh.streams.StreamsMain;
import io.healthmesh.streams.StreamsSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Runs one component as its own process against any Kafka: the cluster flags become the
 * component's keys, {@code --client-config} properties are passed to its Kafka clients, and
 * properties files or {@code key=value} arguments set everything else (keys in docs/components.md).
 */
public abstract class ServeCommand implements Callable<Integer> {
  @Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClusterOptions cluster;

  @Parameters(paramLabel = "FILE.properties|key=value", arity = "0..*",
      description = "Settings of the component (see docs/components.md); later ones win.")
  List<String> settings = new ArrayList<>();

  /** A component's {@code main}. */
  @FunctionalInterface
  public interface Main {
    void run(String[] args) throws Exception;
  }

  private final String bootstrapKey;
  private final String registryKey;
  private final String clientPrefix;
  private final Main main;

  /**
   * @param registryKey null when the component needs no schema registry
   * @param clientPrefix the prefix under which the component passes properties to its Kafka clients
   */
  protected ServeCommand(String bootstrapKey, String registryKey, String clientPrefix, Main main) {
    this.bootstrapKey = bootstrapKey;
    this.registryKey = registryKey;
    this.clientPrefix = clientPrefix;
    this.main = main;
  }

  @Override
  public Integer call() throws Exception {
    List<String> args = new ArrayList<>();
    cluster.clientFile().forEach((k, v) -> args.add(clientPrefix + k + "=" + v));
    args.add(bootstrapKey + "=" + cluster.bootstrapServers());
    if (registryKey != null) {
      args.add(registryKey + "=" + cluster.schemaRegistryUrl());
    }
    args.addAll(settings);
    // flags given explicitly win over the files
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    if (parsed.hasMatchedOption("--bootstrap-servers")) {
      args.add(bootstrapKey + "=" + cluster.bootstrapServers());
    }
    if (registryKey != null && parsed.hasMatchedOption("--schema-registry-url")) {
      args.add(registryKey + "=" + cluster.schemaRegistryUrl());
    }
    main.run(args.toArray(String[]::new));
    return 0;
  }

  @Command(name = "topology", mixinStandardHelpOptions = true,
      description = "Run the health aggregation topology (streams-app) as its own process.")
  public static final class Topology extends ServeCommand {
    public Topology() {
      super(StreamsSettings.BOOTSTRAP_SERVERS, StreamsSettings.SCHEMA_REGISTRY_URL, StreamsSettings.STREAMS_PREFIX,
          StreamsMain::main);
    }
  }

  @Command(name = "edge", mixinStandardHelpOptions = true, description = "Run a DNS edge as its own process.")
  public static final class Edge extends ServeCommand {
    public Edge() {
      super(EdgeSettings.BOOTSTRAP_SERVERS, EdgeSettings.SCHEMA_REGISTRY_URL, EdgeSettings.KAFKA_PREFIX, EdgeMain::main);
    }
  }

  @Command(name = "haproxy", mixinStandardHelpOptions = true,
      description = "Drive a running HAProxy through its runtime API with composite health's failover decisions.")
  public static final class Haproxy extends ServeCommand {
    public Haproxy() {
      super(HaproxySettings.BOOTSTRAP_SERVERS, HaproxySettings.SCHEMA_REGISTRY_URL, HaproxySettings.KAFKA_PREFIX,
          HaproxyMain::main);
    }
  }

  @Command(name = "registry", mixinStandardHelpOptions = true,
      description = "Run the schema registry (Confluent REST subset) as its own process.")
  public static final class Registry extends ServeCommand {
    public Registry() {
      super(RegistrySettings.BOOTSTRAP_SERVERS, null, RegistrySettings.CLIENT_PREFIX, SchemaRegistryMain::main);
    }
  }
}
