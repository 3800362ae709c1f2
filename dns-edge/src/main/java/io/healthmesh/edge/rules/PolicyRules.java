package io.healthmesh.edge.rules;

import io.healthmesh.config.AlternativeNameServerConfig;
import io.healthmesh.config.LocalRecordSet;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResponsePolicy;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ResponsePolicyRuleBehavior;
import io.healthmesh.config.ServerPolicy;
import io.healthmesh.config.TargetNameServer;
import io.healthmesh.config.ZoneType;
import io.healthmesh.net.Cidr;
import io.healthmesh.net.IpAddress;
import io.healthmesh.rules.ResourceNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * R-RP-1 and R-SP-1 limits on response policies, their rules, server policies and forwarding
 * zones, checked by {@code healthctl} before it writes and by the edge before it serves. Each
 * method returns every problem as {@code field: message (rule id)}; empty means valid.
 */
public final class PolicyRules {
  private PolicyRules() {}

  /** The rule's key on its topic: {@code <responsePolicy>/<ruleName>}. */
  public static String key(ResponsePolicyRule rule) {
    return rule.getResponsePolicy() + "/" + rule.getRuleName();
  }

  public static List<String> responsePolicy(String key, ResponsePolicy p) {
    List<String> problems = new ArrayList<>();
    name("responsePolicyName", key, p.getResponsePolicyName(), "R-RP-1", problems);
    networks("networks", p.getNetworks(), "R-RP-1", problems);
    if (p.getNetworks().isEmpty()) {
      problems.add("networks: a response policy applies only to the client networks it is attached to; name at least"
          + " one (R-RP-1)");
    }
    return problems;
  }

  public static List<String> responsePolicyRule(String key, ResponsePolicyRule r) {
    List<String> problems = new ArrayList<>();
    if (!key.equals(key(r))) {
      problems.add("ruleName: '" + key(r) + "' differs from the record key '" + key + "' (R-RP-1)");
    }
    nameOnly("responsePolicy", r.getResponsePolicy(), "R-RP-1", problems);
    nameOnly("ruleName", r.getRuleName(), "R-RP-1", problems);
    Name dnsName = ruleName(r.getDnsName());
    if (dnsName == null) {
      problems.add("dnsName: '" + r.getDnsName() + "' is not an absolute domain name, or a wildcard '*.' followed by"
          + " one (R-RP-1)");
    }
    boolean local = r.getLocalData() != null;
    if (local == (r.getBehavior() != ResponsePolicyRuleBehavior.behaviorUnspecified)) {
      problems.add("behavior: a rule has either localData or a behavior (bypassResponsePolicy, nxdomain, nodata), "
          + (local ? "not both" : "and this one has neither") + " (R-RP-1)");
    }
    if (local) {
      localData(r.getLocalData().getLocalDatas(), dnsName, problems);
    }
    return problems;
  }

  private static void localData(List<LocalRecordSet> sets, Name dnsName, List<String> problems) {
    if (sets.isEmpty()) {
      problems.add("localData.localDatas: at least one record set (R-RP-1)");
    }
    Set<String> types = new HashSet<>();
    for (int i = 0; i < sets.size(); i++) {
      LocalRecordSet set = sets.get(i);
      String field = "localData.localDatas[" + i + "]";
      Name owner = ruleName(set.getName());
      if (owner == null || dnsName != null && !owner.equals(dnsName)) {
        problems.add(field + ".name: '" + set.getName() + "' is not the rule's dnsName (R-RP-1)");
      }
      if (!DnsConfigRules.TYPES.contains(set.getType())) {
        problems.add(field + ".type: '" + set.getType() + "' is not one of " + new TreeSet<>(DnsConfigRules.TYPES)
            + " (R-RP-1)");
      } else if (!types.add(set.getType())) {
        problems.add(field + ".type: a second " + set.getType() + " record set; at most one per type (R-RP-1)");
      }
      if (set.getTtl() < 0) {
        problems.add(field + ".ttl: " + set.getTtl() + " must be at least 0 (R-RP-1)");
      }
      if (set.getRrdatas().isEmpty()) {
        problems.add(field + ".rrdatas: at least one rrdata (R-RP-1)");
      }
      int type = Type.value(set.getType());
      for (String rrdata : DnsConfigRules.TYPES.contains(set.getType()) ? set.getRrdatas() : List.<String>of()) {
        try {
          DnsConfigRules.record(Name.root, type, 0, rrdata);
        } catch (IOException | RuntimeException e) {
          problems.add(field + ".rrdatas: '" + rrdata + "' is not valid " + set.getType() + " data: " + e.getMessage()
              + " (R-RP-1)");
        }
      }
    }
    if (types.contains("CNAME") && types.size() > 1) {
      problems.add("localData.localDatas: a CNAME stands alone, without other types at the same name (R-RP-1)");
    }
  }

  public static List<String> serverPolicy(String key, ServerPolicy p) {
    List<String> problems = new ArrayList<>();
    name("name", key, p.getName(), "R-SP-1", problems);
    networks("networks", p.getNetworks(), "R-SP-1", problems);
    if (p.getNetworks().isEmpty()) {
      problems.add("networks: a server policy applies to the client networks it names; name at least one (R-SP-1)");
    }
    networks("inboundNetworks", p.getInboundNetworks(), "R-SP-1", problems);
    if (p.getEnableInboundForwarding() && p.getInboundNetworks().isEmpty()) {
      problems.add("inboundNetworks: enableInboundForwarding admits the clients of these networks; name at least one"
          + " (R-SP-1)");
    } else if (!p.getEnableInboundForwarding() && !p.getInboundNetworks().isEmpty()) {
      problems.add("inboundNetworks: admitted only with enableInboundForwarding true (R-SP-1)");
    }
    if (!(p.getLoggingSampleRate() >= 0 && p.getLoggingSampleRate() <= 1)) {
      problems.add("loggingSampleRate: " + p.getLoggingSampleRate() + " is outside 0..1 (R-SP-1)");
    }
    AlternativeNameServerConfig alt = p.getAlternativeNameServerConfig();
    if (alt != null) {
      targets("alternativeNameServerConfig.targetNameServers", alt.getTargetNameServers(), problems);
    }
    return problems;
  }

  /** R-SP-1: a FORWARDING zone has forwarding targets, and only it has them. */
  public static List<String> forwarding(ManagedZone z) {
    List<String> problems = new ArrayList<>();
    boolean forwarding = z.getZoneType() == ZoneType.FORWARDING;
    if (forwarding && z.getForwardingConfig() == null) {
      problems.add("forwardingConfig: a FORWARDING zone names the servers its queries go to (R-SP-1)");
    } else if (!forwarding && z.getForwardingConfig() != null) {
      problems.add("forwardingConfig: only a FORWARDING zone forwards, not a " + z.getZoneType() + " one (R-SP-1)");
    } else if (forwarding) {
      targets("forwardingConfig.targetNameServers", z.getForwardingConfig().getTargetNameServers(), problems);
    }
    return problems;
  }

  private static void targets(String field, List<TargetNameServer> targets, List<String> problems) {
    if (targets.isEmpty()) {
      problems.add(field + ": at least one name server (R-SP-1)");
    }
    for (int i = 0; i < targets.size(); i++) {
      TargetNameServer t = targets.get(i);
      String at = field + "[" + i + "]";
      boolean v4 = !t.getIpv4Address().isEmpty();
      boolean v6 = !t.getIpv6Address().isEmpty();
      if (v4 == v6) {
        problems.add(at + ": exactly one of ipv4Address and ipv6Address (R-SP-1)");
      } else if (v4 && (IpAddress.parse(t.getIpv4Address()) == null || IpAddress.parse(t.getIpv4Address()).length != 4)) {
        problems.add(at + ".ipv4Address: '" + t.getIpv4Address() + "' is not an IPv4 address (R-SP-1)");
      } else if (v6 && (IpAddress.parse(t.getIpv6Address()) == null || IpAddress.parse(t.getIpv6Address()).length != 16)) {
        problems.add(at + ".ipv6Address: '" + t.getIpv6Address() + "' is not an IPv6 address (R-SP-1)");
      }
      if (t.getPort() < 1 || t.getPort() > 65535) {
        problems.add(at + ".port: " + t.getPort() + " is outside 1..65535 (R-SP-1)");
      }
    }
  }

  /**
   * The name a rule matches, with a wildcard kept as its first label; null when it is not an
   * absolute name or puts '*' anywhere but alone in the first label of a name below the root.
   */
  public static Name ruleName(String text) {
    if (text == null || !text.endsWith(".") || text.equals("*.")) {
      return null;
    }
    try {
      Name name = Name.fromString(text, Name.root);
      for (int i = 0; i < name.labels() - 1; i++) {
        String label = name.getLabelString(i);
        if (label.contains("*") && (i > 0 || !label.equals("*"))) {
          return null;
        }
      }
      return name;
    } catch (TextParseException e) {
      return null;
    }
  }

  private static void name(String field, String key, String name, String rule, List<String> problems) {
    if (!key.equals(name)) {
      problems.add(field + ": '" + name + "' differs from the record key '" + key + "' (" + rule + ")");
    }
    nameOnly(field, name, rule, problems);
  }

  private static void nameOnly(String field, String name, String rule, List<String> problems) {
    String invalid = ResourceNames.problem(field, name);
    if (invalid != null) {
      problems.add(invalid + " (" + rule + ")");
    }
  }

  private static void networks(String field, List<String> networks, String rule, List<String> problems) {
    for (String network : networks) {
      try {
        Cidr.parse(network);
      } catch (IllegalArgumentException e) {
        problems.add(field + ": " + e.getMessage() + " (" + rule + ")");
      }
    }
  }
}
