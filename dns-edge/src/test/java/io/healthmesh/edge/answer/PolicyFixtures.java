package io.healthmesh.edge.answer;

import io.healthmesh.config.LocalRecordSet;
import io.healthmesh.config.ResponsePolicy;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ResponsePolicyRuleBehavior;
import io.healthmesh.config.ResponsePolicyRuleLocalData;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/** Response policies, rules and queries for the policy tests. */
public final class PolicyFixtures {
  private PolicyFixtures() {}

  public static ResponsePolicy policy(String name, String... networks) {
    return ResponsePolicy.newBuilder().setResponsePolicyName(name).setNetworks(List.of(networks)).build();
  }

  public static ResponsePolicyRule local(String policy, String rule, String dnsName, String type, String... rrdatas) {
    return ResponsePolicyRule.newBuilder().setResponsePolicy(policy).setRuleName(rule).setDnsName(dnsName)
        .setLocalData(ResponsePolicyRuleLocalData.newBuilder().setLocalDatas(List.of(LocalRecordSet.newBuilder()
            .setName(dnsName).setType(type).setTtl(60).setRrdatas(List.of(rrdatas)).build())).build()).build();
  }

  public static ResponsePolicyRule behavior(String policy, String rule, String dnsName, ResponsePolicyRuleBehavior behavior) {
    return ResponsePolicyRule.newBuilder().setResponsePolicy(policy).setRuleName(rule).setDnsName(dnsName)
        .setBehavior(behavior).build();
  }

  public static byte[] query(String name, int type) {
    return Message.newQuery(Record.newRecord(Name.fromConstantString(name), type, DClass.IN)).toWire();
  }

  public static Message parse(byte[] reply) {
    try {
      return new Message(reply);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  public static List<String> answers(Message m) {
    return m.getSection(Section.ANSWER).stream()
        .map(r -> r.getName() + " " + Type.string(r.getType()) + " " + r.rdataToString()).toList();
  }

  public static InetAddress address(String text) {
    try {
      return InetAddress.getByName(text);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
