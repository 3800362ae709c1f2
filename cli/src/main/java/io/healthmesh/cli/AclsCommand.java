package io.healthmesh.cli;

import io.healthmesh.edge.EdgeApp;
import io.healthmesh.haproxy.HaproxyAdapter;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.KafkaAccess;
import io.healthmesh.streams.HealthStreamsApp;
import io.healthmesh.xds.XdsApp;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code healthctl acls}: the ACLs each component needs on a secured cluster, from the
 * components' own statements of what they do in Kafka, as {@code kafka-acls} commands.
 */
@Command(name = "acls", mixinStandardHelpOptions = true, description = {
    "Print the ACLs each component needs on a secured Kafka, as kafka-acls commands (least privilege:",
    "only the topics, groups, transactional ids and cluster operations its code uses). --apply creates",
    "them instead, with the --client-config of an administrator."})
final class AclsCommand implements Callable<Integer> {
  static final List<String> COMPONENTS = List.of("topology", "edge", "xds", "haproxy", "registry", CliAccess.PROBER,
      CliAccess.READ, CliAccess.APPLY, CliAccess.AUDIT);
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9._:/=@+-]+");

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClusterOptions cluster;

  @Option(names = "--component", paramLabel = "NAME", split = ",",
      description = "Only these components: topology, edge, xds, haproxy, registry, prober, healthctl-read,"
          + " healthctl-apply, audit (default: all).")
  List<String> components = new ArrayList<>();

  @Option(names = "--application-id", defaultValue = "healthmesh-streams",
      description = "The topology's application.id (default: ${DEFAULT-VALUE}).")
  String applicationId;

  @Option(names = "--edge", paramLabel = "NAME", split = ",", defaultValue = "edge-1",
      description = "Edges, each authenticated as User:NAME (default: ${DEFAULT-VALUE}).")
  List<String> edges;

  @Option(names = "--registry-topic", defaultValue = "_schemas",
      description = "The schema registry's kafkastore.topic (default: ${DEFAULT-VALUE}).")
  String registryTopic;

  @Option(names = "--principal", paramLabel = "COMPONENT=PRINCIPAL", mapFallbackValue = "",
      description = "A component's principal, e.g. prober=User:probe-eu (defaults: User:<application id> for the"
          + " topology, User:<edge name> for edges, User:healthmesh-<component> or User:<component> for the rest).")
  Map<String, String> principals = new LinkedHashMap<>();

  @Option(names = "--command-config", paramLabel = "FILE", defaultValue = "admin.properties",
      description = "The administrator's client settings, as the printed kafka-acls commands name them"
          + " (default: ${DEFAULT-VALUE}).")
  String commandConfig;

  @Option(names = "--apply", description = "Create the ACLs in the cluster instead of printing them.")
  boolean apply;

  /** One component run by one principal. */
  record Grant(String principal, KafkaAccess access) {}

  @Override
  public Integer call() throws Exception {
    for (String c : components) {
      if (!COMPONENTS.contains(c)) {
        throw new CommandLine.ParameterException(spec.commandLine(), "unknown component '" + c + "'; one of "
            + String.join(", ", COMPONENTS));
      }
    }
    for (String c : principals.keySet()) {
      if (!COMPONENTS.contains(c) || principals.get(c).isBlank()) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--principal " + c + "=" + principals.get(c)
            + ": expected COMPONENT=PRINCIPAL with COMPONENT one of " + String.join(", ", COMPONENTS));
      }
    }
    List<Grant> grants = grants();
    PrintWriter out = spec.commandLine().getOut();
    if (apply) {
      List<AclBinding> all = grants.stream().flatMap(g -> g.access().bindings(g.principal()).stream()).toList();
      try (Admin admin = Admin.create(cluster.client())) {
        admin.createAcls(all).all().get(60, TimeUnit.SECONDS);
      }
      out.println("created " + all.size() + " ACLs for " + grants.size() + " principals");
    } else {
      for (Grant g : grants) {
        out.println("# " + g.access().component() + " as " + g.principal() + ": " + g.access().describe());
        commands(g).forEach(out::println);
        out.println();
      }
    }
    out.flush();
    return 0;
  }

  List<Grant> grants() {
    List<String> wanted = components.isEmpty() ? COMPONENTS : components;
    List<Grant> grants = new ArrayList<>();
    for (String c : COMPONENTS) {
      if (!wanted.contains(c)) {
        continue;
      }
      switch (c) {
        case "topology" -> grants.add(new Grant(principal(c, "User:" + applicationId),
            HealthStreamsApp.kafkaAccess(applicationId)));
        case "edge" -> edges.forEach(e -> grants.add(new Grant(principal(c, "User:" + e), EdgeApp.kafkaAccess())));
        case "xds" -> grants.add(new Grant(principal(c, "User:healthmesh-xds"), XdsApp.kafkaAccess()));
        case "haproxy" -> grants.add(new Grant(principal(c, "User:healthmesh-haproxy"), HaproxyAdapter.kafkaAccess()));
        case "registry" -> grants.add(new Grant(principal(c, "User:healthmesh-registry"),
            SchemaRegistry.kafkaAccess(registryTopic)));
        case CliAccess.PROBER -> grants.add(new Grant(principal(c, "User:healthmesh-prober"), CliAccess.prober()));
        case CliAccess.READ -> grants.add(new Grant(principal(c, "User:healthctl-read"), CliAccess.reader()));
        case CliAccess.APPLY -> grants.add(new Grant(principal(c, "User:healthctl-apply"), CliAccess.applier()));
        default -> grants.add(new Grant(principal(c, "User:healthctl-audit"), CliAccess.auditor()));
      }
    }
    return grants;
  }

  private String principal(String component, String fallback) {
    return principals.getOrDefault(component, fallback);
  }

  /** One kafka-acls command per resource kind and set of operations, naming every resource that shares them. */
  List<String> commands(Grant grant) {
    Map<String, List<ResourcePattern>> byOperations = new LinkedHashMap<>();
    Map<ResourcePattern, List<AclOperation>> operations = new LinkedHashMap<>();
    for (AclBinding b : grant.access().bindings(grant.principal())) {
      operations.computeIfAbsent(b.pattern(), p -> new ArrayList<>()).add(b.entry().operation());
    }
    operations.forEach((pattern, ops) -> byOperations.computeIfAbsent(pattern.resourceType() + " "
        + pattern.patternType() + " " + ops, k -> new ArrayList<>()).add(pattern));
    List<String> commands = new ArrayList<>();
    byOperations.values().forEach(patterns -> {
      StringBuilder line = new StringBuilder("kafka-acls --bootstrap-server " + quote(cluster.bootstrapServers)
          + " --command-config " + quote(commandConfig) + " --add --allow-principal " + quote(grant.principal()));
      operations.get(patterns.get(0)).forEach(op -> line.append(" --operation ").append(operationName(op)));
      if (patterns.get(0).patternType() == PatternType.PREFIXED) {
        line.append(" --resource-pattern-type prefixed");
      }
      for (ResourcePattern p : patterns) {
        switch (p.resourceType()) {
          case TOPIC -> line.append(" --topic ").append(quote(p.name()));
          case GROUP -> line.append(" --group ").append(quote(p.name()));
          case TRANSACTIONAL_ID -> line.append(" --transactional-id ").append(quote(p.name()));
          case CLUSTER -> line.append(" --cluster");
          default -> throw new IllegalStateException("no kafka-acls flag for " + p.resourceType());
        }
      }
      commands.add(line.toString());
    });
    return commands;
  }

  /** kafka-acls spells operations in camel case: DESCRIBE_CONFIGS is DescribeConfigs. */
  static String operationName(AclOperation operation) {
    StringBuilder name = new StringBuilder();
    for (String word : operation.name().split("_")) {
      name.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
    }
    return name.toString();
  }

  private static String quote(String word) {
    return PLAIN.matcher(word).matches() ? word : "'" + word.replace("'", "'\\''") + "'";
  }
}
