package io.healthmesh.schemas;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthSource;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.ResponsePolicy;
import io.healthmesh.config.ResponsePolicyRule;
import io.healthmesh.config.ServerPolicy;
import io.healthmesh.events.ConfigInForce;
import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.DeadLetter;
import io.healthmesh.events.DnsDecision;
import io.healthmesh.events.DnsQueryLog;
import io.healthmesh.events.EdgeStatus;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.events.XdsStatus;
import java.util.List;

/** Every topic of healthmesh, with its key and value types (docs/architecture.md, "Topics"). */
public final class Topics {
  // Configuration: compacted, keyed by resource name, written by healthctl.
  public static final Topic<String, BackendService> BACKEND_SERVICES =
      new Topic<>("config.backend-service", String.class, BackendService.class, true);
  public static final Topic<String, HealthAggregationPolicy> HEALTH_AGGREGATION_POLICIES =
      new Topic<>("config.health-aggregation-policy", String.class, HealthAggregationPolicy.class, true);
  public static final Topic<String, HealthSource> HEALTH_SOURCES =
      new Topic<>("config.health-source", String.class, HealthSource.class, true);
  public static final Topic<String, CompositeHealthCheck> COMPOSITE_HEALTH_CHECKS =
      new Topic<>("config.composite-health-check", String.class, CompositeHealthCheck.class, true);
  public static final Topic<String, ForwardingRule> FORWARDING_RULES =
      new Topic<>("config.forwarding-rule", String.class, ForwardingRule.class, true);
  public static final Topic<String, ManagedZone> MANAGED_ZONES =
      new Topic<>("config.managed-zone", String.class, ManagedZone.class, true);
  /** Keyed {@code <zone>/<name>/<type>}. */
  public static final Topic<String, ResourceRecordSet> RESOURCE_RECORD_SETS =
      new Topic<>("config.resource-record-set", String.class, ResourceRecordSet.class, true);
  /** Keyed by responsePolicyName (R-RP-1). */
  public static final Topic<String, ResponsePolicy> RESPONSE_POLICIES =
      new Topic<>("config.response-policy", String.class, ResponsePolicy.class, true);
  /** Keyed {@code <responsePolicy>/<ruleName>} (R-RP-1). */
  public static final Topic<String, ResponsePolicyRule> RESPONSE_POLICY_RULES =
      new Topic<>("config.response-policy-rule", String.class, ResponsePolicyRule.class, true);
  /** Keyed by name (R-SP-1). */
  public static final Topic<String, ServerPolicy> SERVER_POLICIES =
      new Topic<>("config.server-policy", String.class, ServerPolicy.class, true);
  /** Configuration records that broke a rule (docs/rules.md), with the reason; append only. */
  public static final Topic<String, DeadLetter> CONFIG_DLQ =
      new Topic<>("config-dlq", String.class, DeadLetter.class, false);

  // Health pipeline.
  /** Keyed by backend service name, or by the external endpoint's address. */
  public static final Topic<String, ProbeResult> PROBE_RESULTS =
      new Topic<>("probe-results", String.class, ProbeResult.class, false);
  public static final Topic<String, DeadLetter> PROBE_RESULTS_DLQ =
      new Topic<>("probe-results-dlq", String.class, DeadLetter.class, false);
  public static final Topic<EntityKey, HealthState> HEALTH_STATE =
      new Topic<>("health-state", EntityKey.class, HealthState.class, true);
  public static final Topic<EntityKey, HealthTransition> HEALTH_TRANSITIONS =
      new Topic<>("health-transitions", EntityKey.class, HealthTransition.class, false);
  /** Keyed by consumer backend service name. */
  public static final Topic<String, ConsumerFailover> CONSUMER_FAILOVER =
      new Topic<>("consumer-failover", String.class, ConsumerFailover.class, true);

  // DNS edges.
  /** Keyed by query name; sampled. */
  public static final Topic<String, DnsDecision> DNS_DECISIONS =
      new Topic<>("dns-decisions", String.class, DnsDecision.class, false);
  /** Keyed by client address: the queries of clients whose server policy logs them (R-SP-1). */
  public static final Topic<String, DnsQueryLog> DNS_QUERY_LOG =
      new Topic<>("dns-query-log", String.class, DnsQueryLog.class, false);
  /** Keyed by edge name; each edge's latest report of what it serves. */
  public static final Topic<String, EdgeStatus> EDGE_STATUS =
      new Topic<>("edge-status", String.class, EdgeStatus.class, true);
  /** Keyed by xDS server name; each server's latest report of what it serves and to whom. */
  public static final Topic<String, XdsStatus> XDS_STATUS =
      new Topic<>("xds-status", String.class, XdsStatus.class, true);
  /**
   * Keyed {@code <topic>|<record key>}: the version of a configuration record the edges keep in
   * force because later ones broke a rule, so that it survives compaction (written by the edges).
   */
  public static final Topic<String, ConfigInForce> CONFIG_IN_FORCE =
      new Topic<>("config-in-force", String.class, ConfigInForce.class, true);

  /**
   * Header of every {@code health-state} record: when the topology published it (epoch
   * milliseconds, as decimal text). The record's timestamp is the probe's, so an edge can tell
   * the topology's part of the probe-to-answer time from its own.
   */
  public static final String PUBLISHED_AT_HEADER = "healthmesh.published";

  private static final List<Topic<?, ?>> ALL = List.of(
      BACKEND_SERVICES, HEALTH_AGGREGATION_POLICIES, HEALTH_SOURCES, COMPOSITE_HEALTH_CHECKS,
      FORWARDING_RULES, MANAGED_ZONES, RESOURCE_RECORD_SETS, RESPONSE_POLICIES, RESPONSE_POLICY_RULES, SERVER_POLICIES,
      CONFIG_DLQ,
      PROBE_RESULTS, PROBE_RESULTS_DLQ, HEALTH_STATE, HEALTH_TRANSITIONS, CONSUMER_FAILOVER,
      DNS_DECISIONS, DNS_QUERY_LOG, EDGE_STATUS, XDS_STATUS, CONFIG_IN_FORCE);

  private Topics() {}

  public static List<Topic<?, ?>> all() {
    return ALL;
  }
}
