package io.healthmesh.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healthmesh.cli.audit.AuditData;
import io.healthmesh.cli.audit.Explainer;
import io.healthmesh.cli.audit.Transitions;
import io.healthmesh.cli.config.AvroJson;
import io.healthmesh.edge.state.Cidr;
import io.healthmesh.events.DnsDecision;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.TransitionCause;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.time.Duration;
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
    subcommands = {AuditCommand.Timeline.class, AuditCommand.StateAt.class, AuditCommand.Explain.class,
        ReplayCommand.class})
final class AuditCommand implements Callable<Integer> {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return 2;
  }

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

    AuditData data() {
      return new AuditData(cluster.client(), cluster.registry(), !noProgress);
    }

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    void json(Object tree) throws Exception {
      out().println(JSON.writeValueAsString(tree));
      out().flush();
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
    public Integer call() throws Exception {
      Map.Entry<EntityKind, String> e = parse(spec, entity);
      List<HealthTransition> timeline = data().transitions().timeline(e.getKey(), e.getValue(), from, to);
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
        out.println("(no transition of " + e.getKey() + "/" + e.getValue() + " in that window)");
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
      "An entity that never left UNKNOWN before T is not listed."})
  static final class StateAt extends Base {
    @Parameters(paramLabel = "TIME", description = "The instant, ISO-8601.")
    Instant at;

    @Option(names = "--kind", description = "Only this entity kind, e.g. COMPOSITE_HEALTH_CHECK.")
    String kind;

    @Option(names = "--name", description = "Only entities of this name.")
    String name;

    @Override
    public Integer call() throws Exception {
      Map<String, Transitions.State> states = data().transitions().all(at);
      List<Transitions.State> selected = states.values().stream()
          .filter(s -> kind == null || s.entity().getKind().name().equalsIgnoreCase(kind.replace('-', '_')))
          .filter(s -> name == null || s.entity().getName().equals(name)).toList();
      if (format == Format.json) {
        ArrayNode list = JSON.createArrayNode();
        selected.forEach(s -> list.addObject().put("kind", s.entity().getKind().name()).put("name", s.entity().getName())
            .put("state", s.status().name()).put("since", s.setBy().getEventTime().toString())
            .put("version", s.setBy().getVersion()));
        json(list);
        return 0;
      }
      PrintWriter out = out();
      out.printf("%-24s %-40s %-10s %-26s %s%n", "KIND", "NAME", "STATE", "SINCE", "VERSION");
      selected.forEach(s -> out.printf("%-24s %-40s %-10s %-26s %d%n", s.entity().getKind(), s.entity().getName(),
          s.status(), s.setBy().getEventTime(), s.setBy().getVersion()));
      out.flush();
      return 0;
    }
  }

  @Command(name = "explain", mixinStandardHelpOptions = true, description = {
      "What an edge would have answered for NAME TYPE at an instant, and why: the record set version in force,",
      "each bucket's addresses with their health then, the rule that decides, and how often each answer comes",
      "(the edge's own routing engine over " + Explainer.DRAWS + " draws), with the decisions the edges logged",
      "around that time when dns.decisions.sample.rate was on."})
  static final class Explain extends Base {
    @Parameters(index = "0", paramLabel = "NAME", description = "Query name, e.g. db.example.internal")
    String name;

    @Parameters(index = "1", paramLabel = "TYPE", description = "Query type, e.g. A")
    String type;

    @Option(names = "--at", required = true, description = "The instant, ISO-8601.")
    Instant at;

    @Option(names = "--region", description = "Region where the query enters (the edge's region).")
    String region;

    @Option(names = "--client-subnet", description = "EDNS client subnet of the query; with --subnet-regions.")
    String clientSubnet;

    @Option(names = "--subnet-regions", description = "The edges' dns.client.subnet.regions, CIDR=region,...")
    String subnetRegions;

    @Option(names = "--zone", description = "The zone, when several serve the name.")
    String zone;

    @Option(names = "--window", defaultValue = "PT1M", description = "Logged decisions this long either side of"
        + " --at (default: ${DEFAULT-VALUE}).")
    Duration window;

    @Override
    public Integer call() throws Exception {
      String source = sourceRegion();
      AuditData data = data();
      Explainer.Explanation x = new Explainer(data.config(), data.transitions()).explain(zone, name, type, at, source);
      if (x == null) {
        spec.commandLine().getErr().println("no " + type + " record set named " + name + " was in force at " + at);
        return 1;
      }
      List<DnsDecision> logged = data.decisions(name, type, at.minus(window), at.plus(window));
      if (format == Format.json) {
        ObjectNode root = JSON.valueToTree(Map.of("recordSet", x.recordSet(), "policy", x.policy(),
            "sourceRegion", source, "version", x.version().where(), "versionTime", x.version().time().toString(),
            "oldestRetainedVersion", x.version().oldestRetained()));
        root.set("buckets", JSON.valueToTree(x.buckets()));
        root.set("outcomes", JSON.valueToTree(x.outcomes()));
        ArrayNode decisions = root.putArray("loggedDecisions");
        logged.forEach(d -> decisions.add(AvroJson.writeAll(d)));
        json(root);
        return 0;
      }
      PrintWriter out = out();
      out.println(x.recordSet() + " at " + at + ", query entering in " + source);
      out.println("  record set version: " + x.version().where() + " written " + x.version().time()
          + (x.version().oldestRetained() ? " (the oldest version retained; earlier ones were compacted away)" : ""));
      out.println("  policy: " + x.policy());
      for (Explainer.BucketAt b : x.buckets()) {
        out.println("  bucket " + b.label() + (x.policy().equals("WRR") ? " weight " + b.weight() : ""));
        for (Explainer.AddressAt a : b.addresses()) {
          out.println("    " + a.rrdata() + (a.checked() ? "  " + a.health() + (a.since() == null ? " (no state yet)"
              : " since " + a.since()) : "  not health checked"));
        }
      }
      out.println("  answers:");
      for (Explainer.Outcome o : x.outcomes()) {
        out.printf("    %6.2f%%  %-30s bucket %-24s %-13s %s%n", o.probability() * 100, String.join(" ", o.answer()),
            o.bucket(), o.reason(), o.rule());
      }
      out.println("  decisions logged by the edges within " + window + " of " + at + ": " + logged.size());
      logged.stream().limit(20).forEach(d -> out.println("    " + d.getTime() + " " + d.getEdge() + " from "
          + d.getSourceRegion() + ": " + d.getBucket() + " " + d.getReason()));
      out.flush();
      return 0;
    }

    private String sourceRegion() throws Exception {
      if (clientSubnet == null) {
        if (region == null) {
          throw new CommandLine.ParameterException(spec.commandLine(), "give --region or --client-subnet");
        }
        return region;
      }
      if (subnetRegions == null) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--client-subnet needs --subnet-regions, the edges' dns.client.subnet.regions");
      }
      InetAddress subnet = InetAddress.getByName(clientSubnet.split("/")[0]);
      for (String entry : subnetRegions.split(",")) {
        String[] parts = entry.trim().split("=");
        if (parts.length == 2 && Cidr.parse(parts[0]).contains(subnet)) {
          return parts[1];
        }
      }
      if (region == null) {
        throw new CommandLine.ParameterException(spec.commandLine(), clientSubnet
            + " is in no --subnet-regions entry; give --region, the edge's own region (R-GEO-1)");
      }
      return region;
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
