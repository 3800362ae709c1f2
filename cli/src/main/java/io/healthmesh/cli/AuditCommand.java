package io.healthmesh.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.healthmesh.cli.audit.AuditData;
import io.healthmesh.cli.audit.Transitions;
import io.healthmesh.cli.config.AvroJson;
import io.healthmesh.events.DnsQueryLog;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.TransitionCause;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code audit}: answers from the topics alone what the state was, why, and what DNS answered (R-AUD-1). */
@Command(name = "audit", mixinStandardHelpOptions = true, description = {
    "Read the topics (any Kafka, never writing) to tell what happened and why (R-AUD-1, R-AUD-2).",
    "Times are ISO-8601, such as 2026-11-30T12:00:00Z."},
    subcommands = {AuditCommand.Timeline.class, AuditCommand.StateAt.class, ExplainCommand.class,
        AuditCommand.Queries.class, ReplayCommand.class})
final class AuditCommand extends CommandGroup {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  enum Format { table, json }

  /** What every audit command shares. */
  abstract static class Base implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    ClusterOptions cluster;

    @Option(names = {"-o", "--output"}, defaultValue = "table", description = "table or json (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--no-progress", description = "No progress bar on stderr (it only shows on a terminal anyway).")
    boolean noProgress;

    @Override
    public final Integer call() throws Exception {
      try (AuditData data = new AuditData(cluster.client(), cluster.registry(), !noProgress)) {
        return call(data);
      }
    }

    /** The command, reading through {@code data}. */
    abstract Integer call(AuditData data) throws Exception;

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    void json(Object tree) throws Exception {
      out().println(JSON.writeValueAsString(tree));
      out().flush();
    }
  }

  @Command(name = "queries", mixinStandardHelpOptions = true, description = {
      "The queries the edges logged (dns-query-log) for clients of server policies with enableLogging",
      "(R-SP-1): client, name, type, response code, answer, latency, and what answered."})
  static final class Queries extends Base {
    @Option(names = "--client", description = "Only this client address.")
    String client;

    @Option(names = "--name", description = "Only this query name.")
    String name;

    @Option(names = "--from", description = "First query time shown.")
    Instant from;

    @Option(names = "--to", description = "Last query time shown.")
    Instant to;

    @Override
    Integer call(AuditData data) throws Exception {
      List<DnsQueryLog> queries = data.queries(client, name, from, to);
      if (format == Format.json) {
        ArrayNode list = JSON.createArrayNode();
        queries.forEach(q -> list.add(AvroJson.writeAll(q)));
        json(list);
        return 0;
      }
      PrintWriter out = out();
      out.printf("%-26s %-16s %-16s %-5s %-36s %-6s %-9s %9s %-34s %s%n", "TIME", "EDGE", "CLIENT", "PROTO", "NAME",
          "TYPE", "RCODE", "LATENCY", "SOURCE", "ANSWER");
      for (DnsQueryLog q : queries) {
        out.printf("%-26s %-16s %-16s %-5s %-36s %-6s %-9s %7dus %-34s %s%n", q.getTime(), q.getEdge(), q.getClient(),
            q.getProtocol(), q.getQueryName(), q.getQueryType(), q.getRcode(), q.getLatencyMicros(), q.getSource(),
            String.join("; ", q.getAnswer()));
      }
      out.flush();
      return 0;
    }
  }

  @Command(name = "timeline", mixinStandardHelpOptions = true, description = {
      "Every transition of one entity with its cause: counts, thresholds, policy and version, triggering record.",
      "ENTITY is KIND/NAME, e.g. COMPOSITE_HEALTH_CHECK/orders-use1-chc, endpoint/orders-use1/vm-1,",
      "forwarding_rule/fr-orders-use1, external_endpoint/10.2.0.7."})
  static final class Timeline extends Base {
    @Parameters(paramLabel = "ENTITY", description = "KIND/NAME")
    String entity;

    @Option(names = "--from", description = "First event time shown.")
    Instant from;

    @Option(names = "--to", description = "Last event time shown.")
    Instant to;

    @Override
    Integer call(AuditData data) throws Exception {
      Map.Entry<EntityKind, String> e = parse(spec, entity);
      Transitions transitions = data.transitions();
      List<HealthTransition> timeline = transitions.timeline(e.getKey(), e.getValue(), from, to);
      if (format == Format.json) {
        ArrayNode list = JSON.createArrayNode();
        timeline.forEach(t -> list.add(AvroJson.writeAll(t)));
        json(list);
        return 0;
      }
      PrintWriter out = out();
      out.printf("%-26s %-24s %-10s %-9s %-14s %-26s %-28s %s%n", "EVENT TIME", "TRANSITION", "REASON", "H/U/?",
          "THRESHOLDS", "POLICY@VERSION", "TRIGGER", "DETAIL");
      for (HealthTransition t : timeline) {
        TransitionCause c = t.getCause();
        out.printf("%-26s %-24s %-10s %-9s %-14s %-26s %-28s %s%n", t.getEventTime(),
            t.getOldStatus() + " -> " + t.getNewStatus(), c.getReason(),
            c.getHealthyCount() + "/" + c.getUnhealthyCount() + "/" + c.getUnknownCount(), thresholds(c),
            c.getPolicyName() == null ? "-" : c.getPolicyName() + (c.getPolicyVersion() == null ? "" : "@" + c.getPolicyVersion()),
            c.getTriggerTopic() == null ? "-" : c.getTriggerTopic() + "-" + c.getTriggerPartition() + "@" + c.getTriggerOffset(),
            c.getDetail());
      }
      if (timeline.isEmpty()) {
        Transitions.State now = transitions.at(e.getKey(), e.getValue(), to == null ? Instant.now() : to);
        out.println("(no transition of " + e.getKey() + "/" + e.getValue() + " in that window"
            + (now.setBy() == null && now.knownSince() != null
                ? "; health-state has known it since " + now.knownSince() + ", UNKNOWN: never judged yet)" : ")"));
      }
      out.flush();
      return 0;
    }

    private static String thresholds(TransitionCause c) {
      if (c.getHealthyPercentThreshold() != null) {
        return c.getHealthyPercentThreshold() + "% min " + c.getMinHealthyThreshold();
      }
      if (c.getHealthyThreshold() != null) {
        return c.getHealthyThreshold() + " up/" + c.getUnhealthyThreshold() + " down";
      }
      return "-";
    }
  }

  @Command(name = "state-at", mixinStandardHelpOptions = true, description = {
      "The state of every entity (or of a kind, or one name) at an instant, rebuilt from health-transitions.",
      "Entities health-state knew at T that were never judged are listed as UNKNOWN since they became known."})
  static final class StateAt extends Base {
    @Parameters(paramLabel = "TIME", arity = "0..1", description = "The instant, ISO-8601 (default: now).")
    Instant at;

    @Option(names = "--kind", description = "Only this entity kind, e.g. COMPOSITE_HEALTH_CHECK.")
    String kind;

    @Option(names = "--name", description = "Only entities of this name.")
    String name;

    @Override
    Integer call(AuditData data) throws Exception {
      Map<String, Transitions.State> states = data.transitions().all(at == null ? Instant.now() : at);
      List<Transitions.State> selected = states.values().stream()
          .filter(s -> kind == null || s.entity().getKind().name().equalsIgnoreCase(kind.replace('-', '_')))
          .filter(s -> name == null || s.entity().getName().equals(name)).toList();
      if (format == Format.json) {
        ArrayNode list = JSON.createArrayNode();
        selected.forEach(s -> list.addObject().put("kind", s.entity().getKind().name()).put("name", s.entity().getName())
            .put("state", s.status().name()).put("since", s.since().toString()).put("version", s.version())
            .put("judged", s.setBy() != null));
        json(list);
        return 0;
      }
      PrintWriter out = out();
      out.printf("%-24s %-40s %-10s %-26s %s%n", "KIND", "NAME", "STATE", "SINCE", "VERSION");
      selected.forEach(s -> out.printf("%-24s %-40s %-10s %-26s %d%n", s.entity().getKind(), s.entity().getName(),
          s.status(), s.since() + (s.setBy() == null ? " (never judged)" : ""), s.version()));
      out.flush();
      return 0;
    }
  }

  static Map.Entry<EntityKind, String> parse(CommandLine.Model.CommandSpec spec, String entity) {
    try {
      return AuditData.entity(entity);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
