package io.healthmesh.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healthmesh.cli.audit.AuditData;
import io.healthmesh.cli.audit.ConfigHistory;
import io.healthmesh.cli.audit.Explainer;
import io.healthmesh.cli.audit.PolicyPath;
import io.healthmesh.cli.config.AvroJson;
import io.healthmesh.edge.explain.QueryRoute;
import io.healthmesh.edge.explain.RecordSetView;
import io.healthmesh.edge.explain.SourceRegions;
import io.healthmesh.events.DnsDecision;
import io.healthmesh.net.Cidr;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code audit explain}: what an edge would have answered at an instant, and why. */
@Command(name = "explain", mixinStandardHelpOptions = true, description = {
    "What an edge would have answered for NAME TYPE at an instant, and why: the record set version in force,",
    "each bucket's addresses with their health then, the rule that decides, and how often each answer comes",
    "(the edge's own routing engine over " + Explainer.DRAWS + " draws), with the decisions the edges logged",
    "around that time when dns.decisions.sample.rate was on."})
final class ExplainCommand extends AuditCommand.Base {
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

  @Option(names = "--client", description = "Client address: first tell which way its query went (response"
      + " policies, zones, forwarding; R-RP-1, R-SP-1).")
  InetAddress client;

  @Option(names = "--window", defaultValue = "PT1M", description = "Logged decisions this long either side of"
      + " --at (default: ${DEFAULT-VALUE}).")
  Duration window;

  @Override
  Integer call(AuditData data) throws Exception {
    ConfigHistory config = data.config();
    PolicyPath.Path path = client == null ? null : PolicyPath.explain(config, at, client, name);
    if (path != null && path.way() != QueryRoute.Way.ZONE) {
      if (format == AuditCommand.Format.json) {
        json(AuditCommand.JSON.valueToTree(Map.of("client", client.getHostAddress(), "path", path)));
      } else {
        printPath(out(), path);
        out().flush();
      }
      return 0; // no record set of a zone answered this client
    }
    String source = sourceRegion();
    Explainer.Explanation x = new Explainer(config, data.transitions()).explain(zone, name, type, at, source);
    if (x == null) {
      spec.commandLine().getErr().println("no " + type + " record set named " + name + " was in force at " + at);
      return 1;
    }
    List<DnsDecision> logged = data.decisions(name, type, at.minus(window), at.plus(window));
    if (format == AuditCommand.Format.json) {
      ObjectNode root = AuditCommand.JSON.valueToTree(Map.of("recordSet", x.recordSet(), "policy", x.policy(),
          "sourceRegion", source, "version", x.version().where(), "versionTime", x.version().time().toString(),
          "oldestRetainedVersion", x.version().oldestRetained()));
      root.set("buckets", AuditCommand.JSON.valueToTree(x.buckets()));
      root.set("outcomes", AuditCommand.JSON.valueToTree(x.outcomes()));
      if (x.dryRun() != null) { // R-OP-5
        Explainer.Explanation d = x.dryRun();
        root.set("dryRun", AuditCommand.JSON.valueToTree(Map.of("recordSet", d.recordSet(), "policy", d.policy(),
            "version", d.version().where(), "buckets", d.buckets(), "outcomes", d.outcomes())));
      }
      if (path != null) {
        root.set("path", AuditCommand.JSON.valueToTree(path));
      }
      ArrayNode decisions = root.putArray("loggedDecisions");
      logged.forEach(d -> decisions.add(AvroJson.writeAll(d)));
      json(root);
      return 0;
    }
    PrintWriter out = out();
    if (path != null) {
      printPath(out, path);
    }
    out.println(x.recordSet() + " at " + at + ", query entering in " + source);
    print(out, x, "  ");
    if (x.dryRun() != null) {
      out.println("  beside it, a dry run (not answered, R-OP-5): " + x.dryRun().recordSet());
      print(out, x.dryRun(), "    ");
    }
    out.println("  decisions logged by the edges within " + window + " of " + at + ": " + logged.size());
    logged.stream().limit(20).forEach(d -> out.println("    " + d.getTime() + " " + d.getEdge() + " from "
        + d.getSourceRegion() + ": " + d.getBucket() + " " + d.getReason()
        + (d.getDryRun() ? " (dry run" + (d.getDiffers() ? ", differs)" : ")") : "")));
    out.flush();
    return 0;
  }

  /** Which way the client's query went, as the edge's own policies decide (R-RP-1, R-SP-1). */
  private void printPath(PrintWriter out, PolicyPath.Path p) {
    out.println("client " + client.getHostAddress() + " at " + at + ": server policy "
        + (p.serverPolicy() == null ? "none" : p.serverPolicy() + (p.inbound() ? " (admitted by inbound forwarding)" : ""))
        + ", response policy " + (p.responsePolicy() == null ? "none" : p.responsePolicy()
            + (p.rule() == null ? " (no rule matches)" : ", rule " + p.rule() + " (" + p.ruleBehavior() + ")")));
    out.println("  " + p.outcome());
  }

  /** One record set's version, buckets with their health, and answers with their odds. */
  private static void print(PrintWriter out, Explainer.Explanation x, String indent) {
    out.println(indent + "record set version: " + x.version().where() + " written " + x.version().time()
        + (x.version().oldestRetained() ? " (the oldest version retained; earlier ones were compacted away)" : ""));
    out.println(indent + "policy: " + x.policy());
    for (Explainer.BucketAt b : x.buckets()) {
      out.println(indent + "bucket " + b.label() + (x.policy().equals("WRR") ? " weight " + b.weight() : ""));
      for (Explainer.AddressAt a : b.addresses()) {
        out.println(indent + "  " + a.rrdata() + (a.checked() ? "  " + a.health() + (a.since() == null
            ? " (no state yet)" : " since " + a.since()) + (a.countedAs() == null ? ""
            : ", counted " + a.countedAs() + " (R-OP-2)") + (a.why() == null ? "" : ": " + a.why())
            : "  not health checked"));
      }
    }
    out.println(indent + "answers:");
    for (RecordSetView.Outcome o : x.outcomes()) {
      out.printf("%s  %6.2f%%  %-30s bucket %-24s %-13s %s%n", indent, o.probability() * 100,
          String.join(" ", o.answer()), o.bucket(), o.reason(), o.rule());
    }
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
    List<String> problems = new ArrayList<>();
    SourceRegions regions = SourceRegions.parse(subnetRegions, problems::add);
    Cidr subnet = null;
    try {
      subnet = Cidr.parse(clientSubnet); // an address alone is its full-length prefix
    } catch (IllegalArgumentException e) {
      problems.add("--client-subnet: " + e.getMessage());
    }
    if (!problems.isEmpty()) {
      throw new CommandLine.ParameterException(spec.commandLine(), String.join("; ", problems));
    }
    // The edge's own rule, source prefix length included (R-GEO-1).
    String mapped = regions.regionOf(subnet);
    if (mapped != null) {
      return mapped;
    }
    if (region == null) {
      throw new CommandLine.ParameterException(spec.commandLine(), clientSubnet
          + " is in no --subnet-regions entry; give --region, the edge's own region (R-GEO-1)");
    }
    return region;
  }
}
