package io.healthmesh.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healthmesh.cli.audit.AuditData;
import io.healthmesh.cli.audit.Replayer;
import io.healthmesh.cli.audit.Transitions;
import io.healthmesh.cli.config.Resource;
import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.cli.config.ResourceReader;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code audit replay}: the topology re-run offline over what was recorded, compared with what was
 * published; with {@code --policy}, a back-test of other aggregation policies.
 */
@Command(name = "replay", mixinStandardHelpOptions = true, description = {
    "Re-run the topology offline (in memory, never into the live topics) over the recorded configuration and",
    "probe results, and report the differences from the transitions that were published (R-AUD-2).",
    "--policy FILE replaces aggregation policies, composite health checks (another style, R-OP-4) and backend",
    "services (another health check: a dwell time or flap damping, R-OP-3) of the same names for the whole",
    "replay: a back-test. Endpoint state before",
    "--from is not known to the replay, so the first thresholds' worth of results after it warm it up."})
final class ReplayCommand extends AuditCommand.Base {
  @Option(names = "--from", description = "Replay probe results from this time (default: the beginning).")
  Instant from;

  @Option(names = "--to", description = "Up to this time (default: the end).")
  Instant to;

  @Option(names = "--policy", paramLabel = "FILE", description = "HealthAggregationPolicy, CompositeHealthCheck and BackendService documents to use"
      + " instead.")
  String policy;

  @Override
  Integer call(AuditData data) throws Exception {
    List<Resource> policies = policies();
    Replayer.Result result = new Replayer(data.scan(), data.registry()).replay(from, to, policies);
    List<HealthTransition> published = new ArrayList<>();
    for (HealthTransition t : data.transitions().all()) {
      if ((from == null || !t.getEventTime().isBefore(from)) && (to == null || !t.getEventTime().isAfter(to))) {
        published.add(t);
      }
    }
    List<HealthTransition> replayed = result.transitions().stream()
        .filter(t -> from == null || !t.getEventTime().isBefore(from)).toList();
    List<String> onlyReplayed = difference(replayed, published);
    List<String> onlyPublished = difference(published, replayed);
    Instant end = to != null ? to : latest(published, replayed);
    Map<String, long[]> perEntity = new TreeMap<>();
    summarize(published, end, perEntity, 0);
    summarize(replayed, end, perEntity, 1);
    if (format == AuditCommand.Format.json) {
      ObjectNode root = AuditCommand.JSON.createObjectNode();
      root.put("configRecords", result.configRecords()).put("probeRecords", result.probeRecords())
          .put("seconds", result.seconds()).put("published", published.size()).put("replayed", replayed.size());
      root.set("onlyReplayed", AuditCommand.JSON.valueToTree(onlyReplayed));
      root.set("onlyPublished", AuditCommand.JSON.valueToTree(onlyPublished));
      ObjectNode entities = root.putObject("entities");
      perEntity.forEach((e, v) -> entities.putObject(e).put("publishedTransitions", v[0]).put("replayedTransitions", v[1])
          .put("publishedUnhealthySeconds", v[2] / 1000.0).put("replayedUnhealthySeconds", v[3] / 1000.0));
      json(root);
      return 0;
    }
    PrintWriter out = out();
    out.printf("replayed %d probe results and %d configuration records in %.1f s (%.0f records/s)%s%n",
        result.probeRecords(), result.configRecords(), result.seconds(),
        (result.probeRecords() + result.configRecords()) / Math.max(result.seconds(), 1e-9),
        policies.isEmpty() ? "" : " with " + policies.size() + " policy(ies) from " + policy);
    out.printf("transitions: published %d, replayed %d; %d differences%n", published.size(), replayed.size(),
        onlyReplayed.size() + onlyPublished.size());
    onlyReplayed.forEach(d -> out.println("  only in replay:     " + d));
    onlyPublished.forEach(d -> out.println("  only as published:  " + d));
    out.printf("%n%-56s %12s %12s %16s %16s%n", "ENTITY", "PUBLISHED", "REPLAYED", "UNHEALTHY PUB.", "UNHEALTHY REP.");
    perEntity.forEach((e, v) -> {
      if (v[0] != v[1] || v[2] != v[3] || !policies.isEmpty()) {
        out.printf("%-56s %12d %12d %16s %16s%n", e, v[0], v[1], Duration.ofMillis(v[2]), Duration.ofMillis(v[3]));
      }
    });
    out.flush();
    return 0;
  }

  private static final Set<ResourceKind> BACK_TESTED =
      EnumSet.of(ResourceKind.HEALTH_AGGREGATION_POLICY, ResourceKind.COMPOSITE_HEALTH_CHECK,
          ResourceKind.BACKEND_SERVICE);

  private List<Resource> policies() {
    if (policy == null) {
      return List.of();
    }
    ResourceReader.Read read = ResourceReader.load(List.of(policy), System.in);
    List<String> problems = new ArrayList<>(read.problems());
    read.resources().stream().filter(r -> !BACK_TESTED.contains(r.kind())).forEach(r -> problems.add(r.origin()
        + ": kind: only HealthAggregationPolicy, CompositeHealthCheck and BackendService documents can be back-tested"));
    if (!problems.isEmpty()) {
      throw new CommandLine.ParameterException(spec.commandLine(), String.join("\n", problems));
    }
    return read.resources();
  }

  /** Transitions of {@code a} that {@code b} does not have (as a multiset). */
  static List<String> difference(List<HealthTransition> a, List<HealthTransition> b) {
    Map<String, Integer> left = new HashMap<>();
    b.forEach(t -> left.merge(Replayer.identity(t), 1, Integer::sum));
    List<String> missing = new ArrayList<>();
    for (HealthTransition t : a) {
      String id = Replayer.identity(t);
      if (left.getOrDefault(id, 0) > 0) {
        left.merge(id, -1, Integer::sum);
      } else {
        missing.add(id);
      }
    }
    return new ArrayList<>(new TreeSet<>(missing));
  }

  /** Per entity: transitions (index offset) and milliseconds UNHEALTHY until {@code end} (offset + 2). */
  private static void summarize(List<HealthTransition> transitions, Instant end, Map<String, long[]> perEntity, int offset) {
    Transitions byEntity = new Transitions();
    transitions.forEach(byEntity::add);
    byEntity.done();
    Map<String, Instant> unhealthySince = new HashMap<>();
    for (HealthTransition t : byEntity.all()) {
      String key = Transitions.key(t.getEntity().getKind(), t.getEntity().getName());
      long[] v = perEntity.computeIfAbsent(key, k -> new long[4]);
      v[offset]++;
      Instant since = unhealthySince.remove(key);
      if (since != null) {
        v[offset + 2] += Duration.between(since, t.getEventTime()).toMillis();
      }
      if (t.getNewStatus() == HealthStatus.UNHEALTHY) {
        unhealthySince.put(key, t.getEventTime());
      }
    }
    unhealthySince.forEach((key, since) -> perEntity.get(key)[offset + 2] += Math.max(0,
        Duration.between(since, end).toMillis()));
  }

  private static Instant latest(List<HealthTransition> a, List<HealthTransition> b) {
    Instant latest = Instant.EPOCH;
    for (List<HealthTransition> list : List.of(a, b)) {
      for (HealthTransition t : list) {
        if (t.getEventTime().isAfter(latest)) {
          latest = t.getEventTime();
        }
      }
    }
    return latest;
  }
}
