package io.healthmesh.edge.policy;

import io.healthmesh.config.ResponsePolicy;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ServerPolicy;
import io.healthmesh.edge.collect.ShardedMap;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Name;

/**
 * The response and server policies an edge has read (R-RP-1, R-SP-1), already checked, kept by
 * the thread that follows the topics. A rule change edits only its policy's table, so a
 * {@link Policies} costs in proportion to what changed. Where two rules of a policy match the same
 * name (healthctl refuses that, but the topic may hold it), the first by rule name serves.
 */
public final class PolicyState {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyState.class);

  /** A value taken, with its offset on its partition. */
  public record Kept<T>(T value, long offset) {}

  private final Map<String, Kept<ResponsePolicy>> responsePolicies = new TreeMap<>();
  private final Map<String, Kept<ResponsePolicyRule>> rules = new HashMap<>();
  private final Map<String, Kept<ServerPolicy>> serverPolicies = new TreeMap<>();
  /** The entry each rule key serves with: what its removal takes out again. */
  private final Map<String, RuleEntry> entries = new HashMap<>();
  /** Per policy and matched name, its rules by rule name: the first serves. */
  private final Map<Slot, TreeMap<String, RuleEntry>> byName = new HashMap<>();
  private final Map<String, RuleTable> tables = new HashMap<>();
  private final Map<String, ShardedMap.Editor<Name, RuleEntry>[]> editing = new HashMap<>();
  /** Per policy, how many wildcard names stand below a name of each label count (64: 63 and more). */
  private final Map<String, int[]> wildcardDepths = new HashMap<>();
  private boolean changed;
  private Policies current = Policies.NONE;

  public Kept<ResponsePolicy> responsePolicy(String name) {
    return responsePolicies.get(name);
  }

  public Kept<ResponsePolicyRule> rule(String key) {
    return rules.get(key);
  }

  public Kept<ServerPolicy> serverPolicy(String name) {
    return serverPolicies.get(name);
  }

  public void responsePolicy(String name, ResponsePolicy policy, long offset) {
    put(responsePolicies, name, policy == null ? null : new Kept<>(policy, offset));
    changed = true;
  }

  public void serverPolicy(String name, ServerPolicy policy, long offset) {
    put(serverPolicies, name, policy == null ? null : new Kept<>(policy, offset));
    changed = true;
  }

  /** A rule, checked by PolicyRules; null removes it. */
  public void rule(String key, ResponsePolicyRule rule, long offset) {
    put(rules, key, rule == null ? null : new Kept<>(rule, offset));
    RuleEntry before = entries.remove(key);
    if (before != null) {
      serve(before, false);
    }
    if (rule != null) {
      try {
        RuleEntry entry = RuleEntry.of(rule, offset);
        entries.put(key, entry);
        serve(entry, true);
      } catch (IOException | RuntimeException e) {
        LOG.warn("response policy rule {} left out: {}", key, e.toString());
      }
    }
    changed = true;
  }

  /** Where a policy's rules of one name compete: the exact name, or the name under a wildcard. */
  private record Slot(String policy, Name name, boolean wildcard) {}

  /** Puts (or takes out) a rule's entry among the rules of its name, and serves the first of them. */
  private void serve(RuleEntry entry, boolean add) {
    Slot slot = new Slot(entry.policy(), entry.name(), entry.wildcard());
    TreeMap<String, RuleEntry> same = byName.computeIfAbsent(slot, k -> new TreeMap<>());
    if (add) {
      same.put(entry.ruleName(), entry);
    } else {
      same.remove(entry.ruleName());
    }
    RuleEntry first = same.isEmpty() ? null : same.firstEntry().getValue();
    if (same.isEmpty()) {
      byName.remove(slot);
    }
    ShardedMap.Editor<Name, RuleEntry> editor = editor(entry.policy())[entry.wildcard() ? 1 : 0];
    boolean had = editor.get(entry.name()) != null;
    if (first == null) {
      editor.remove(entry.name());
    } else {
      editor.put(entry.name(), first);
    }
    if (entry.wildcard() && had != (first != null)) {
      wildcardDepths.computeIfAbsent(entry.policy(), p -> new int[64])[Math.min(entry.name().labels(), 63)] +=
          had ? -1 : 1;
    }
  }

  private long depths(String policy) {
    long mask = 0;
    int[] counts = wildcardDepths.getOrDefault(policy, new int[64]);
    for (int labels = 0; labels < counts.length; labels++) {
      mask |= counts[labels] > 0 ? RuleTable.depthBit(labels) : 0;
    }
    return mask;
  }

  @SuppressWarnings("unchecked")
  private ShardedMap.Editor<Name, RuleEntry>[] editor(String policy) {
    return editing.computeIfAbsent(policy, p -> {
      RuleTable table = tables.getOrDefault(p, RuleTable.empty(p));
      return new ShardedMap.Editor[] {table.exact().edit(), table.wildcards().edit()};
    });
  }

  public boolean changed() {
    return changed;
  }

  /** The policies as of now; the same object while nothing changed. */
  public Policies policies() {
    if (!changed) {
      return current;
    }
    editing.forEach((policy, e) -> {
      RuleTable table = new RuleTable(policy, e[0].done(), e[1].done(), depths(policy));
      if (table.size() == 0) {
        tables.remove(policy);
      } else {
        tables.put(policy, table);
      }
    });
    editing.clear();
    List<Policies.Attached> attached = new ArrayList<>();
    responsePolicies.forEach((name, p) -> attached.add(new Policies.Attached(Networks.parse(p.value().getNetworks()),
        tables.getOrDefault(name, RuleTable.empty(name)))));
    List<ServerPolicyView> servers = new ArrayList<>();
    serverPolicies.values().forEach(p -> servers.add(ServerPolicyView.of(p.value())));
    current = new Policies(attached, servers);
    changed = false;
    return current;
  }

  /** Rules served, over every policy. */
  public int rules() {
    return rules.size();
  }

  private static <K, V> V put(Map<K, V> map, K key, V value) {
    return value == null ? map.remove(key) : map.put(key, value);
  }
}
