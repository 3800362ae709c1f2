package io.healthmesh.edge.policy;

import io.healthmesh.config.LocalRecordSet;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ResponsePolicyRuleBehavior;
import io.healthmesh.edge.rules.DnsConfigRules;
import io.healthmesh.edge.rules.PolicyRules;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * One response-policy rule as the edge serves it (R-RP-1): its local data already parsed into
 * records, by type, owned by the rule's name (a wildcard's are renamed to the query name when
 * answered).
 *
 * @param name the name it matches; for a wildcard, the name the '*' stands below
 */
public record RuleEntry(String policy, String ruleName, Name name, boolean wildcard,
    ResponsePolicyRuleBehavior behavior, Map<Integer, List<Record>> local, long offset) {

  /** @throws IOException when the rule does not parse; the edge checks its rules before, so only on a bug */
  public static RuleEntry of(ResponsePolicyRule rule, long offset) throws IOException {
    Name dnsName = PolicyRules.ruleName(rule.getDnsName());
    if (dnsName == null) {
      throw new IOException("not a rule name: " + rule.getDnsName());
    }
    boolean wildcard = dnsName.isWild();
    Name name = wildcard ? new Name(dnsName, 1) : dnsName;
    Map<Integer, List<Record>> local = new HashMap<>();
    if (rule.getLocalData() != null) {
      for (LocalRecordSet set : rule.getLocalData().getLocalDatas()) {
        int type = Type.value(set.getType());
        List<Record> records = new ArrayList<>();
        for (String rrdata : set.getRrdatas()) {
          records.add(DnsConfigRules.record(dnsName, type, set.getTtl(), rrdata));
        }
        local.put(type, List.copyOf(records));
      }
    }
    return new RuleEntry(rule.getResponsePolicy(), rule.getRuleName(), name, wildcard, rule.getBehavior(),
        Map.copyOf(local), offset);
  }

  public boolean bypasses() {
    return behavior == ResponsePolicyRuleBehavior.bypassResponsePolicy;
  }

  /**
   * The records answering {@code qname} of {@code qtype}: those of the type, else the CNAME;
   * empty for NODATA. Only for a rule with local data.
   */
  public List<Record> answer(Name qname, int qtype) {
    List<Record> records = local.get(qtype);
    if (records == null) {
      records = local.getOrDefault(Type.CNAME, List.of());
    }
    if (!wildcard || records.isEmpty()) {
      return records;
    }
    List<Record> renamed = new ArrayList<>(records.size());
    for (Record r : records) {
      renamed.add(r.withName(qname));
    }
    return renamed;
  }

  /** How the query log and metrics name what answered. */
  public String source() {
    return "response-policy:" + policy + "/" + ruleName;
  }
}
