package io.healthmesh.streams.endpoint;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.LoadBalancerType;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.TransitionCause;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.internal.ForwardingRuleRef;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.streams.codec.Origin;
import io.healthmesh.streams.output.Causes;
import io.healthmesh.streams.output.Publisher;
import io.healthmesh.streams.rules.Aggregation;
import io.healthmesh.streams.store.MirroredStore;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * A load balancer's health as a DNS target (R-DNSHC-2, R-DNSHC-3), judged in its service's task
 * from the service's counts, one Streams transaction after the probe.
 */
final class LoadBalancers {
  /** {@code service|rule}: the load balancers in front of each service of this task. */
  private final MirroredStore<ForwardingRule> rules;
  private final Publisher targets;

  LoadBalancers(ProcessorContext<?, ?> context, Publisher targets) {
    this.rules = new MirroredStore<>(context, PerServiceStores.RULES);
    this.targets = targets;
  }

  /** A forwarding rule now fronts, or no longer fronts, {@code service}; {@code counts} null when the service is unknown. */
  void apply(String service, ForwardingRuleRef ref, ServiceSnapshot counts, Origin origin) {
    Instant time = Instant.ofEpochMilli(origin.timestamp());
    if (ref.getRule() == null) {
      rules.delete(service + "|" + ref.getName());
      targets.delete(new EntityKey(EntityKind.FORWARDING_RULE, ref.getName()), time);
      return;
    }
    rules.put(service + "|" + ref.getName(), ref.getRule());
    judge(ref.getRule(), counts, TransitionReason.MEMBERSHIP_CHANGE, origin, time);
  }

  /** Every load balancer in front of {@code service}; {@code counts} null: the service is gone. */
  void judgeAll(String service, ServiceSnapshot counts, TransitionReason reason, Origin origin, Instant time) {
    for (ForwardingRule rule : rules.prefix(service + "|").values()) {
      judge(rule, counts, reason, origin, time);
    }
  }

  /** R-DNSHC-2, R-AGG-5 for passthrough NLBs, R-DNSHC-3 for application and proxy LBs; {@code counts} null: unknown service. */
  private void judge(ForwardingRule rule, ServiceSnapshot counts, TransitionReason reason, Origin origin, Instant time) {
    Aggregation.Thresholds t = rule.getLoadBalancerType() == LoadBalancerType.regionalL4ilb
        ? Aggregation.PASSTHROUGH_LB : Aggregation.ANY_HEALTHY;
    String ruleId = t == Aggregation.PASSTHROUGH_LB ? "passthrough NLB (R-AGG-5, R-DNSHC-2)"
        : "application or proxy LB (R-DNSHC-3)";
    Aggregation.Counts c = counts == null ? new Aggregation.Counts(0, 0, 0)
        : new Aggregation.Counts(counts.getHealthy(), counts.getUnhealthy(), counts.getUnknown());
    HealthStatus status = counts == null ? HealthStatus.UNKNOWN : Aggregation.status(c, t);
    TransitionCause.Builder cause = Causes.of(reason, origin)
        .setHealthyPercentThreshold(t.healthyPercent()).setMinHealthyThreshold(t.minHealthy())
        .setPolicyName(rule.getLoadBalancerType().name())
        .setDetail(counts == null ? "backend service " + rule.getBackendService() + " not known yet"
            : Causes.detail(c, t, ruleId));
    targets.publish(new EntityKey(EntityKind.FORWARDING_RULE, rule.getName()), status, c, rule.getRegion(), cause, time);
  }
}
