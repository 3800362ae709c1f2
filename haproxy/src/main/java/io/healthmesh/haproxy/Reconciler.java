package io.healthmesh.haproxy;

import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.NegState;
import io.healthmesh.haproxy.ServerState.Admin;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What to tell HAProxy so that a backend follows its consumer's failover decision (R-HAP-1), and
 * who owns each server (R-HAP-3): the adapter remembers what it last set, so a server found
 * otherwise, with no HAProxy restart in between, was changed by an operator and is left alone,
 * said once, until it is back where the adapter put it. Confined to the adapter's thread.
 */
final class Reconciler {
  private final int weight;
  private final Map<String, Target> lastSet = new HashMap<>();
  private final Set<String> overridden = new HashSet<>();

  /** A server's wanted administrative state and weight. */
  record Target(Admin admin, int weight) {}

  Reconciler(int weight) {
    this.weight = weight;
  }

  /**
   * R-HAP-1: the first active region's NEG takes all the traffic at the configured weight, the
   * other active ones stand by at weight 0 (ready, as lower priorities), the NEGs the decision
   * does not send traffic to are in maintenance. Servers in the decision's order.
   */
  Map<String, Target> desired(ConsumerFailover decision) {
    Map<String, Target> out = new LinkedHashMap<>();
    List<String> active = decision.getActiveRegions();
    for (String region : active) {
      for (NegState n : decision.getNegs()) {
        if (n.getRegion().equals(region)) {
          out.put(n.getName(), new Target(Admin.ready, region.equals(active.get(0)) ? weight : 0));
        }
      }
    }
    for (NegState n : decision.getNegs()) {
      out.putIfAbsent(n.getName(), new Target(Admin.maint, 0));
    }
    return out;
  }

  /** After HAProxy restarted: everything it holds is its configuration's again, nobody's override. */
  void restarted() {
    lastSet.clear();
    overridden.clear();
  }

  /**
   * The runtime API commands that bring {@code backend}'s servers to {@code desired}; servers
   * missing from HAProxy go to {@code problems}, operators' changes are reported to {@code warn}.
   */
  List<String> commands(String backend, Map<String, Target> desired, Map<String, ServerState> observed,
      List<String> problems, Consumer<String> warn) {
    List<String> commands = new ArrayList<>();
    for (Map.Entry<String, Target> e : desired.entrySet()) {
      String key = backend + "/" + e.getKey();
      Target want = e.getValue();
      ServerState now = observed.get(e.getKey());
      if (now == null) {
        problems.add("HAProxy backend " + backend + " has no server " + e.getKey() + " for that NEG (R-HAP-1)");
        continue;
      }
      Target last = lastSet.get(key);
      boolean atLast = last != null && now.sameAs(last.admin(), last.weight());
      boolean atWant = now.sameAs(want.admin(), want.weight());
      if (overridden.contains(key)) {
        if (!atLast && !atWant) {
          continue;
        }
        overridden.remove(key);
        warn.accept("server " + key + " is back under healthmesh's control (R-HAP-3)");
      } else if (last != null && !atLast && !atWant) {
        overridden.add(key);
        warn.accept("server " + key + " was set to " + now.admin() + " weight " + now.weight() + " by hand (healthmesh"
            + " set " + last.admin() + " weight " + last.weight() + "); left alone until it is back (R-HAP-3)");
        continue;
      }
      if (now.admin() != want.admin()) {
        commands.add("set server " + key + " state " + want.admin());
      }
      if (now.weight() != want.weight()) {
        commands.add("set server " + key + " weight " + want.weight());
      }
      lastSet.put(key, want);
    }
    return commands;
  }

  int overridden() {
    return overridden.size();
  }

  Set<String> overriddenServers() {
    return Set.copyOf(overridden);
  }
}
