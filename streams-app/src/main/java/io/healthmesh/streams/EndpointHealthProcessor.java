package io.healthmesh.streams;

import io.healthmesh.streams.rules.ConfigRules;
import io.healthmesh.config.BackendService;
import io.healthmesh.config.Endpoint;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.events.TransitionCause;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.LoadBalancerType;
import io.healthmesh.internal.ExternalEndpointRef;
import io.healthmesh.net.IpAddress;
import io.healthmesh.internal.ForwardingRuleRef;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.DeadLetters.Origin;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The per-service stage (docs/rules.md section 1): probe results and backend-service configuration, both
 * keyed and partitioned by backend service, so an endpoint's state and its service's counts live
 * in one task. Most probes change nothing and stop here; only state changes go on.
 */
final class EndpointHealthProcessor implements Processor<String, byte[], String, Out> {
  static final String ENDPOINTS = "endpoints";
  static final String COMMIT_HOOK = "endpoints-commit-hook";
  static final String SERVICES = "services";
  static final String PROBE_CLOCK = "probe-clock";
  static final String EXTERNAL_REFS = "external-endpoint-refs";
  static final String RULES = "service-forwarding-rules";
  private static final String WATERMARK = "watermark";

  private final TopologySerdes serdes;
  private final StreamsSettings settings;
  private final Metrics metrics;
  private ProcessorContext<String, Out> context;
  private EndpointTable endpoints;
  private MirroredStore<ServiceSnapshot> services;
  private final Map<String, ServiceView> views = new HashMap<>();
  /** {@code address|recordSet}: which record sets health check an external endpoint, and how. */
  private MirroredStore<ExternalEndpointRef> externalRefs;
  private PromptCommit prompt;
  /** {@code service|rule}: the load balancers in front of each service of this task. */
  private MirroredStore<ForwardingRule> rules;
  private Publisher targets;
  private KeyValueStore<String, Long> probeClock;
  private long watermark;
  private long lastExpiryCheck;

  EndpointHealthProcessor(TopologySerdes serdes, StreamsSettings settings, Metrics metrics) {
    this.serdes = serdes;
    this.settings = settings;
    this.metrics = metrics;
  }

  @Override
  public void init(ProcessorContext<String, Out> context) {
    this.context = context;
    this.endpoints = new EndpointTable(context, ENDPOINTS, settings.endpointWrites());
    if (settings.endpointWrites() == EndpointWrites.AT_COMMIT) {
      context.<CommitHook>getStateStore(COMMIT_HOOK).beforeCommit(endpoints::flush);
    }
    this.services = new MirroredStore<>(context, SERVICES);
    this.externalRefs = new MirroredStore<>(context, EXTERNAL_REFS);
    this.rules = new MirroredStore<>(context, RULES);
    this.prompt = new PromptCommit(context, settings.changeCommitDelay(), settings.changeCommitMaxLag());
    this.targets = new Publisher(context, metrics, Publisher.PUBLISHED_TARGETS, prompt);
    this.probeClock = context.getStateStore(PROBE_CLOCK);
    Long stored = probeClock.get(WATERMARK);
    this.watermark = stored == null ? Long.MIN_VALUE : stored;
    this.lastExpiryCheck = watermark;
  }

  @Override
  public void process(Record<String, byte[]> record) {
    prompt.processed(record.timestamp());
    Origin origin = origin(record);
    if (Topics.BACKEND_SERVICES.name().equals(origin.topic())) {
      applyConfig(record, origin);
    } else if (origin.topic().endsWith(HealthTopology.EXTERNAL_REFS_REPARTITION)) {
      applyExternalRef(record, origin);
    } else if (origin.topic().endsWith(HealthTopology.RULE_REFS_REPARTITION)) {
      applyRuleRef(record, origin);
    } else {
      applyProbe(record, origin);
    }
  }

  private void applyProbe(Record<String, byte[]> record, Origin origin) {
    Header keyProblem = record.headers().lastHeader(PartitionRouter.KEY_PROBLEM);
    if (keyProblem != null) {
      deadLetter(DeadLetterReason.INVALID, new String(keyProblem.value(), StandardCharsets.UTF_8), origin, record);
      return;
    }
    ProbeResult probe;
    try {
      probe = serdes.probes.deserialize(origin.topic(), record.value());
    } catch (AvroDeserializationException e) {
      deadLetter(DeadLetters.reasonOf(e), e.at(origin.partition(), origin.offset()).getMessage(), origin, record);
      return;
    }
    if (probe == null) {
      deadLetter(DeadLetterReason.MALFORMED, "probe result without a value", origin, record);
      return;
    }
    if (probe.getType() == ProbeRecordType.HEARTBEAT) {
      String skewed = skewProblem(probe, origin);
      if (skewed != null) {
        deadLetter(DeadLetterReason.INVALID, "heartbeat " + skewed, origin, record);
        return;
      }
      metrics.heartbeat();
      advanceClock(record.timestamp());
      return;
    }
    if (isExternal(probe.getBackendService())) {
      // One spelling of an address for every prober and record set (R-DNSHC-1).
      probe.setEndpointId(IpAddress.canonicalOrSame(probe.getEndpointId()));
    }
    String problem = probeProblem(record.key(), probe, origin);
    if (problem != null) {
      deadLetter(DeadLetterReason.INVALID, problem, origin, record);
      return;
    }
    // The key, equal to the service after the checks above, already has its hash computed.
    String service = record.key() == null ? probe.getBackendService() : record.key();
    Owner owner = owner(isExternal(probe.getBackendService()) ? "" : service, probe.getEndpointId());
    if (owner == null) {
      deadLetter(DeadLetterReason.UNKNOWN_ENTITY, (isExternal(probe.getBackendService())
          ? "external endpoint " + probe.getEndpointId() + " is not health checked by any record set"
          : "endpoint " + probe.getBackendService() + "/" + probe.getEndpointId() + " is not in the configuration")
          + " (R-EP-6)", origin, record);
      return;
    }
    // R-EP-4, R-EP-5: a result dated after its record's time (the broker's, on a topic with
    // LogAppendTime) counts as made at that time, so a prober's fast clock cannot put an
    // endpoint's last result in the future and have the honest results after it ignored.
    long eventTime = Math.min(probe.getEventTime().toEpochMilli(), record.timestamp());
    EndpointState state = endpoints.get(owner.service(), owner.endpoint());
    if (EndpointStateMachine.isOutOfOrder(state, eventTime)) {
      metrics.outOfOrder(); // R-EP-5: counted, never applied
      return;
    }
    boolean first = state == null;
    if (first) {
      state = endpoints.create(owner.service(), owner.endpoint(), owner.ordinal());
    }
    HealthStatus before = state.status;
    EndpointStateMachine.Change change =
        EndpointStateMachine.apply(state, first, probe.getSuccess(), eventTime, record.timestamp(), owner.spec());
    endpoints.save(state);
    metrics.applied();
    if (change != null || first) {
      Instant at = Instant.ofEpochMilli(eventTime); // only for a change: most probes change nothing
      publishEndpoint(owner, before, state, change, origin, at);
      if (state.status != before && owner.config() != null) {
        forwardCounts(owner.config(), at, origin);
      }
    }
    advanceClock(record.timestamp());
  }

  /**
   * Whose endpoint this is and how it is checked; null when the configuration does not know it.
   * {@code service} is "" for an external endpoint.
   */
  private Owner owner(String service, String endpoint) {
    if (service.isEmpty()) {
      var refs = externalRefs.prefix(endpoint + "|");
      if (refs.isEmpty()) {
        return null;
      }
      ExternalEndpointRef ref = refs.values().iterator().next();
      return new Owner("", endpoint, "", ref.getHealthCheck(), ref.getRecordSet(), null, 0);
    }
    ServiceView view = views.computeIfAbsent(service, this::view);
    Integer ordinal = view == null ? null : view.ordinals().get(endpoint);
    if (ordinal == null) {
      return null;
    }
    BackendService config = view.config();
    return new Owner(service, endpoint, config.getRegion(), config.getHealthCheck(), service, config, ordinal);
  }

  /** A service's valid configuration with each endpoint's position in it; null when there is none. */
  private ServiceView view(String service) {
    ServiceSnapshot snapshot = services.get(service);
    if (snapshot == null || snapshot.getConfig() == null) {
      return null;
    }
    Map<String, Integer> ordinals = new HashMap<>();
    List<Endpoint> list = snapshot.getConfig().getEndpoints();
    for (int i = 0; i < list.size(); i++) {
      ordinals.putIfAbsent(list.get(i).getId(), i);
    }
    return new ServiceView(snapshot.getConfig(), ordinals);
  }

  /** Cached per service, as every probe needs it; dropped when the service's configuration changes. */
  private record ServiceView(BackendService config, Map<String, Integer> ordinals) {}

  /**
   * A record set starts or stops health checking an external endpoint (R-DNSHC-4). Once no
   * record set uses it, its state is deleted.
   */
  private void applyExternalRef(Record<String, byte[]> record, Origin origin) {
    String address = record.key();
    ExternalEndpointRef ref = serdes.externalRefReader.deserialize(TopologySerdes.EXTERNAL_REFS_SUBJECT_TOPIC, record.value());
    String refKey = address + "|" + ref.getRecordSet();
    if (!ref.getRemoved()) {
      externalRefs.put(refKey, ref);
      return;
    }
    externalRefs.delete(refKey);
    if (externalRefs.prefix(address + "|").isEmpty()) {
      String key = endpointKey(null, address);
      endpoints.remove("", address);
      EntityKey entity = new EntityKey(EntityKind.EXTERNAL_ENDPOINT, address);
      context.forward(new Record<>(key, new Out.State(entity, null), origin.timestamp()));
      prompt.changed();
    }
  }

  /** An endpoint's owner: its entity on the health topics, and the check it is judged by. */
  private record Owner(String service, String endpoint, String region, HealthCheckSpec spec, String policyName,
      BackendService config, int ordinal) {
    EntityKey entity() {
      return service.isEmpty() ? new EntityKey(EntityKind.EXTERNAL_ENDPOINT, endpoint)
          : new EntityKey(EntityKind.ENDPOINT, endpointKey(service, endpoint));
    }
  }

  /**
   * Staleness (R-EP-4) runs on the record times of probe results and heartbeats alone: the
   * broker's append times when {@code probe-results} has LogAppendTime (as the project creates
   * it), kept in the log so that a replay sees the same. A prober's own clock, in its event
   * times, cannot age endpoints it does not probe. The task's stream time would not do:
   * configuration records share this task and carry their producers' clocks.
   */
  private void advanceClock(long recordTime) {
    if (recordTime <= watermark) {
      return;
    }
    watermark = recordTime;
    if (lastExpiryCheck == Long.MIN_VALUE || watermark - lastExpiryCheck >= settings.staleCheckInterval().toMillis()) {
      lastExpiryCheck = watermark;
      probeClock.put(WATERMARK, watermark);
      expireStale(watermark);
    }
  }

  private String probeProblem(String key, ProbeResult probe, Origin origin) {
    if (probe.getEndpointId().isBlank()) {
      return "endpointId is missing (R-EP-1)";
    }
    String expectedKey = isExternal(probe.getBackendService()) ? probe.getEndpointId() : probe.getBackendService();
    if (key != null && !expectedKey.equals(key) && !(isExternal(probe.getBackendService()) && expectedKey.equals(IpAddress.canonical(key)))) {
      return "record key '" + key + "' is not '" + expectedKey
          + "'; probe results are keyed by backend service, or by address for an external endpoint";
    }
    return skewProblem(probe, origin);
  }

  /** R-EP-4: an event time this far after its record's time says the prober's clock is wrong. */
  private String skewProblem(ProbeResult probe, Origin origin) {
    long skew = probe.getEventTime().toEpochMilli() - origin.timestamp();
    if (skew > settings.maxClockSkew().toMillis()) {
      return "eventTime " + probe.getEventTime() + " is " + Duration.ofMillis(skew) + " after the record's time "
          + Instant.ofEpochMilli(origin.timestamp()) + "; more than the allowed " + settings.maxClockSkew()
          + " (R-EP-4: is the prober's clock right?)";
    }
    return null;
  }

  private void applyConfig(Record<String, byte[]> record, Origin origin) {
    String name = record.key();
    ServiceSnapshot current = services.get(name);
    if (record.value() == null) {
      if (current != null) {
        removeEndpoints(current.getConfig(), Set.of(), origin);
        services.delete(name);
        views.remove(name);
        forwardSnapshot(new ServiceSnapshot(name, null, false, 0, 0, 0, Instant.ofEpochMilli(origin.timestamp()),
            origin.topic(), origin.partition(), origin.offset()), origin.timestamp());
        judgeRules(name, null, TransitionReason.CONFIG_DELETED, origin, Instant.ofEpochMilli(origin.timestamp()));
      }
      return;
    }
    BackendService config;
    try {
      config = serdes.backendServices.deserialize(origin.topic(), record.value());
    } catch (AvroDeserializationException e) {
      deadLetter(DeadLetters.reasonOf(e), e.at(origin.partition(), origin.offset()).getMessage(), origin, record);
      return;
    }
    List<String> problems = ConfigRules.backendService(name, config);
    if (!problems.isEmpty()) {
      deadLetter(DeadLetterReason.INVALID, "BackendService " + name + " rejected, previous version stays: "
          + String.join("; ", problems), origin, record);
      return;
    }
    if (current != null && config.equals(current.getConfig())) {
      return; // applied twice: nothing changes
    }
    Set<String> kept = new HashSet<>();
    config.getEndpoints().forEach(e -> kept.add(e.getId()));
    if (current != null && current.getConfig() != null) {
      removeEndpoints(current.getConfig(), kept, origin); // R-AGG-6: membership re-evaluates at once
    }
    ServiceSnapshot next = snapshot(config, false, Instant.ofEpochMilli(origin.timestamp()), origin);
    services.put(name, next);
    views.remove(name);
    Map<String, Integer> positions = views.computeIfAbsent(name, this::view).ordinals();
    endpoints.regroup(name, positions::get);
    forwardSnapshot(next, origin.timestamp());
    judgeRules(name, next, TransitionReason.MEMBERSHIP_CHANGE, origin, Instant.ofEpochMilli(origin.timestamp()));
  }

  private void removeEndpoints(BackendService old, Set<String> kept, Origin origin) {
    if (old == null) {
      return;
    }
    for (Endpoint e : old.getEndpoints()) {
      if (kept.contains(e.getId())) {
        continue;
      }
      String key = endpointKey(old.getName(), e.getId());
      endpoints.remove(old.getName(), e.getId());
      context.forward(new Record<>(key, new Out.State(entity(key), null), origin.timestamp()));
      prompt.changed();
    }
  }

  /** An endpoint changed state: the aggregate stage gets the service's new counts. */
  private void forwardCounts(BackendService config, Instant eventTime, Origin origin) {
    ServiceSnapshot counts = snapshot(config, true, eventTime, origin);
    forwardSnapshot(counts, eventTime.toEpochMilli());
    TransitionReason reason = origin.offset() < 0 ? TransitionReason.STALE : TransitionReason.MEMBER_STATE;
    judgeRules(config.getName(), counts, reason, origin, eventTime);
  }

  /** A forwarding rule now fronts, or no longer fronts, one of this task's services. */
  private void applyRuleRef(Record<String, byte[]> record, Origin origin) {
    ForwardingRuleRef ref = serdes.ruleRefReader.deserialize(TopologySerdes.RULE_REFS_SUBJECT_TOPIC, record.value());
    String service = record.key();
    Instant time = Instant.ofEpochMilli(origin.timestamp());
    if (ref.getRule() == null) {
      rules.delete(service + "|" + ref.getName());
      targets.delete(new EntityKey(EntityKind.FORWARDING_RULE, ref.getName()), time);
      return;
    }
    rules.put(service + "|" + ref.getName(), ref.getRule());
    ServiceSnapshot snapshot = services.get(service);
    ServiceSnapshot counts = snapshot == null || snapshot.getConfig() == null ? null
        : snapshot(snapshot.getConfig(), true, time, origin);
    judge(ref.getRule(), counts, TransitionReason.MEMBERSHIP_CHANGE, origin, time);
  }

  private void judgeRules(String service, ServiceSnapshot counts, TransitionReason reason, Origin origin, Instant time) {
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

  /** The service's endpoints counted by state; an endpoint without results is UNKNOWN (R-AGG-3). */
  private ServiceSnapshot snapshot(BackendService config, boolean countsOnly, Instant eventTime, Origin origin) {
    int healthy = 0;
    int unhealthy = 0;
    int unknown = 0;
    for (Endpoint e : config.getEndpoints()) {
      EndpointState r = endpoints.get(config.getName(), e.getId());
      HealthStatus s = r == null ? HealthStatus.UNKNOWN : r.status;
      switch (s) {
        case HEALTHY -> healthy++;
        case UNHEALTHY -> unhealthy++;
        default -> unknown++;
      }
    }
    return new ServiceSnapshot(config.getName(), countsOnly ? null : config, countsOnly, healthy, unhealthy, unknown,
        eventTime, origin.topic(), origin.partition(), origin.offset());
  }

  private void forwardSnapshot(ServiceSnapshot snapshot, long timestamp) {
    byte[] bytes = serdes.snapshots.serialize(TopologySerdes.AGGREGATE_INPUT_SUBJECT_TOPIC, snapshot);
    String key = AggregateInput.key(AggregateInput.Kind.SERVICE, snapshot.getName());
    context.forward(new Record<>(key, new Out.ForAggregates(key, bytes), timestamp));
    prompt.changed();
  }

  /** @param change why a result changed it; null for staleness (R-EP-4) or a first result that changed nothing */
  private void publishEndpoint(Owner owner, HealthStatus before, EndpointState next, EndpointStateMachine.Change change,
      Origin origin, Instant eventTime) {
    EntityKey entity = owner.entity();
    String key = entity.getName();
    HealthState state = HealthState.newBuilder()
        .setStatus(next.status).setSince(Instant.ofEpochMilli(next.since)).setRegion(owner.region())
        .setHealthyCount(next.successes).setUnhealthyCount(next.failures)
        .setVersion(next.version).setSourceOffset(origin == null ? null : origin.offset())
        // an endpoint publishes only when its status changes (or at its first result, never known)
        .setLastKnownStatus(Publisher.lastKnown(next.status, before, null)).build();
    long timestamp = eventTime.toEpochMilli();
    context.forward(new Record<>(key, new Out.State(entity, state), timestamp));
    prompt.changed();
    metrics.published(eventTime);
    if (before == next.status) {
      return; // first result of a new endpoint: its UNKNOWN state is published, no transition
    }
    metrics.transition(entity.getKind(), next.status);
    TransitionReason reason = origin == null ? TransitionReason.STALE
        : change == EndpointStateMachine.Change.SUPPRESSED || change == EndpointStateMachine.Change.RELEASED
            ? TransitionReason.FLAP_DAMPING : TransitionReason.PROBE;
    if (reason == TransitionReason.FLAP_DAMPING) {
      metrics.flapDamping(change == EndpointStateMachine.Change.SUPPRESSED);
    }
    TransitionCause.Builder cause = TransitionCause.newBuilder().setReason(reason)
        .setHealthyCount(next.successes).setUnhealthyCount(next.failures)
        .setHealthyThreshold(owner.spec().getHealthyThreshold())
        .setUnhealthyThreshold(owner.spec().getUnhealthyThreshold())
        .setPolicyName(owner.policyName())
        .setDetail(Causes.endpointDetail(next, change, owner.spec()));
    if (origin != null) {
      cause.setTriggerTopic(origin.topic()).setTriggerPartition(origin.partition()).setTriggerOffset(origin.offset());
    }
    HealthTransition transition = HealthTransition.newBuilder().setEntity(entity).setOldStatus(before)
        .setNewStatus(next.status).setEventTime(eventTime).setVersion(next.version)
        .setCause(cause.build()).build();
    context.forward(new Record<>(key, new Out.Transition(entity, transition), timestamp));
  }

  /** R-EP-4 by event time: endpoints whose last result is older than their staleAfter. */
  private void expireStale(long now) {
    for (EndpointState state : endpoints.dueAt(now)) {
      long expiry = state.expiresAt;
      HealthStatus before = state.status;
      boolean changed = EndpointStateMachine.stale(state);
      endpoints.save(state);
      metrics.stale();
      int slash = state.key.indexOf('/');
      Owner owner = owner(state.key.substring(0, slash), state.key.substring(slash + 1));
      if (changed && owner != null) {
        publishEndpoint(owner, before, state, null, null, Instant.ofEpochMilli(expiry));
        if (owner.config() != null) {
          forwardCounts(owner.config(), Instant.ofEpochMilli(expiry), new Origin(Topics.PROBE_RESULTS.name(), -1, -1, expiry));
        }
      }
    }
  }

  private void deadLetter(DeadLetterReason reason, String message, Origin origin, Record<String, byte[]> record) {
    String dlq = Topics.BACKEND_SERVICES.name().equals(origin.topic())
        ? Topics.CONFIG_DLQ.name() : Topics.PROBE_RESULTS_DLQ.name();
    DeadLetters.forward(context, metrics, dlq, reason, message, origin, record.key(), record.value());
  }

  /**
   * Where the record was read; for one moved from another partition, where it was read first,
   * so that a moved backend service is applied as one and a moved probe's dead letter names its
   * place in {@code probe-results}.
   */
  private Origin origin(Record<String, byte[]> record) {
    RecordMetadata m = context.recordMetadata().orElseThrow();
    if (m.topic().endsWith(HealthTopology.PROBES_MOVED_REPARTITION)
        || m.topic().endsWith(HealthTopology.SERVICES_MOVED_REPARTITION)) {
      Header first = record.headers().lastHeader(PartitionRouter.ORIGIN);
      String[] at = first == null ? new String[0] : new String(first.value(), StandardCharsets.UTF_8).split(":");
      if (at.length == 3) {
        return new Origin(at[0], Integer.parseInt(at[1]), Long.parseLong(at[2]), record.timestamp());
      }
    }
    return new Origin(m.topic(), m.partition(), m.offset(), record.timestamp());
  }

  /** {@code service/endpoint}; an external endpoint has no service: {@code /address}. */
  static String endpointKey(String service, String endpoint) {
    return (isExternal(service) ? "" : service) + "/" + endpoint;
  }

  private static boolean isExternal(String service) {
    return service == null || service.isBlank();
  }

  private static EntityKey entity(String endpointKey) {
    return new EntityKey(EntityKind.ENDPOINT, endpointKey);
  }

}
