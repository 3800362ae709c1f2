package io.healthmesh.cli.config;

import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.edge.rules.DnsConfigRules;
import io.healthmesh.edge.rules.PolicyRules;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/** The resource kinds {@code healthctl apply} takes, each bound to its compacted config topic. */
public enum ResourceKind {
  BACKEND_SERVICE("BackendService", Topics.BACKEND_SERVICES, "bs"),
  HEALTH_AGGREGATION_POLICY("HealthAggregationPolicy", Topics.HEALTH_AGGREGATION_POLICIES, "hap"),
  HEALTH_SOURCE("HealthSource", Topics.HEALTH_SOURCES, "hs"),
  COMPOSITE_HEALTH_CHECK("CompositeHealthCheck", Topics.COMPOSITE_HEALTH_CHECKS, "chc"),
  FORWARDING_RULE("ForwardingRule", Topics.FORWARDING_RULES, "fr"),
  MANAGED_ZONE("ManagedZone", Topics.MANAGED_ZONES, "zone"),
  RESOURCE_RECORD_SET("ResourceRecordSet", Topics.RESOURCE_RECORD_SETS, "rrs"),
  RESPONSE_POLICY("ResponsePolicy", Topics.RESPONSE_POLICIES, "rp"),
  RESPONSE_POLICY_RULE("ResponsePolicyRule", Topics.RESPONSE_POLICY_RULES, "rpr"),
  SERVER_POLICY("ServerPolicy", Topics.SERVER_POLICIES, "sp");

  private final String kindName;
  private final Topic<String, ? extends SpecificRecord> topic;
  private final String shortName;

  ResourceKind(String kindName, Topic<String, ? extends SpecificRecord> topic, String shortName) {
    this.kindName = kindName;
    this.topic = topic;
    this.shortName = shortName;
  }

  /** The {@code kind:} value of a document. */
  public String kindName() {
    return kindName;
  }

  @SuppressWarnings("unchecked")
  public Topic<String, SpecificRecord> topic() {
    return (Topic<String, SpecificRecord>) topic;
  }

  public Schema schema() {
    return SpecificData.get().getSchema(topic.valueType());
  }

  /**
   * The record key on the topic: the name, {@code <zone>/<name>/<type>} for a record set, or
   * {@code <responsePolicy>/<ruleName>} for a response-policy rule.
   */
  public String key(SpecificRecord value) {
    if (value instanceof ResourceRecordSet rrs) {
      return DnsConfigRules.key(rrs);
    }
    if (value instanceof ResponsePolicyRule rule) {
      return PolicyRules.key(rule);
    }
    return value.get(value.getSchema().getField(identity().get(0)).pos()).toString();
  }

  /** Fields that identify a resource (Cloud DNS's names); shown even when they hold their default. */
  public List<String> identity() {
    return switch (this) {
      case RESOURCE_RECORD_SET -> List.of("zone", "name", "type");
      case RESPONSE_POLICY -> List.of("responsePolicyName");
      case RESPONSE_POLICY_RULE -> List.of("responsePolicy", "ruleName");
      default -> List.of("name");
    };
  }

  /** Accepts the kind name in any case, its plural, the short name, or the topic suffix. */
  public static Optional<ResourceKind> parse(String text) {
    String t = text.toLowerCase(Locale.ROOT);
    return Arrays.stream(values()).filter(k -> {
      String lower = k.kindName.toLowerCase(Locale.ROOT);
      return t.equals(lower) || t.equals(lower + "s") || t.equals(k.shortName)
          || t.equals(k.topic.name().substring("config.".length()));
    }).findFirst();
  }

  public static String names() {
    return String.join(", ", Arrays.stream(values()).map(k -> k.kindName + " (" + k.shortName + ")").toList());
  }
}
