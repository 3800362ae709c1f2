package io.healthmesh.streams.ingest;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.internal.ForwardingRuleRef;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.streams.codec.TopologySerdes;
import io.healthmesh.streams.output.DeadLetters;
import io.healthmesh.streams.rules.ConfigRules;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Re-keys forwarding rules by their backend service, so that a load balancer's health as a DNS
 * target (R-DNSHC-2, R-DNSHC-3) is judged in the same task as its service's endpoints, one
 * Streams transaction after the probe instead of two. Invalid rules are left to the aggregate
 * stage, which dead-letters them; a rule that moves to another service is removed from the old one.
 */
public final class ForwardingRuleRouter implements Processor<String, byte[], String, ForwardingRuleRef> {
  public static final String RULE_SERVICES = "forwarding-rule-services";

  private final TopologySerdes serdes;
  private ProcessorContext<String, ForwardingRuleRef> context;
  private KeyValueStore<String, String> services;

  public ForwardingRuleRouter(TopologySerdes serdes) {
    this.serdes = serdes;
  }

  @Override
  public void init(ProcessorContext<String, ForwardingRuleRef> context) {
    this.context = context;
    this.services = context.getStateStore(RULE_SERVICES);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    String name = record.key() == null ? "" : record.key();
    ForwardingRule rule = null;
    if (record.value() != null) {
      try {
        rule = serdes.forwardingRules.deserialize(context.recordMetadata().orElseThrow().topic(), record.value());
      } catch (AvroDeserializationException e) {
        DeadLetters.reasonOf(e); // throws when the registry, not the record, failed
        return; // dead-lettered by the aggregate stage
      }
      if (!ConfigRules.forwardingRule(name, rule).isEmpty()) {
        return; // rejected by the aggregate stage; the previous version stays
      }
    }
    String before = services.get(name);
    String after = rule == null ? null : rule.getBackendService();
    if (before != null && !before.equals(after)) {
      forward(before, new ForwardingRuleRef(name, null), record.timestamp());
    }
    if (after != null) {
      services.put(name, after);
      forward(after, new ForwardingRuleRef(name, rule), record.timestamp());
    } else {
      services.delete(name);
    }
  }

  private void forward(String service, ForwardingRuleRef ref, long timestamp) {
    context.forward(new Record<>(service, ref, timestamp));
  }
}
