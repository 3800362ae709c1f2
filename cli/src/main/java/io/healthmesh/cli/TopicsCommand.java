package io.healthmesh.cli;

import io.healthmesh.cli.config.ConfigTopics;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code topics create}: the one-shot that prepares a cluster, as docker-compose runs it. */
@Command(name = "topics", mixinStandardHelpOptions = true, description = "Manage healthmesh's topics.",
    subcommands = TopicsCommand.Create.class)
final class TopicsCommand extends CommandGroup {

  @Command(name = "create", mixinStandardHelpOptions = true, description = {
      "Create every healthmesh topic that does not exist yet, with its settings (compaction, retention).",
      "Configuration topics get as many partitions as probe-results, so they stay co-partitioned."})
  static final class Create implements Callable<Integer> {
    @Mixin
    ClusterOptions cluster;

    @Option(names = "--partitions", defaultValue = "3", description = "Partitions per topic (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--replication-factor", defaultValue = "1", description = "(default: ${DEFAULT-VALUE}).")
    short replicationFactor;

    @Override
    public Integer call() throws Exception {
      new ConfigTopics(cluster.client(), cluster.registry()).ensureTopics(partitions, replicationFactor);
      System.out.println("healthmesh topics present at " + cluster.bootstrapServers);
      return 0;
    }
  }
}
