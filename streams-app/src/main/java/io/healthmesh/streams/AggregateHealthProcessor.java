package io.healthmesh.streams;

import io.healthmesh.streams.rules.ConfigRules;
import io.healthmesh.config.BackendService;
import io.healthmesh.config.CompositeHealthCheck;
import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.HealthAggregationPolicy;
import io.healthmesh.config.HealthSource;
import io.healthmesh.config.PscBackend;
import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.NegState;
import io.healthmesh.events.TransitionCause;
import io.healthmesh.events.TransitionReason;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.AggregateInput.Kind;
import io.healthmesh.streams.DeadLetters.Origin;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The aggregate stage (docs/rules.md sections 2 and 3, health of DNS targets): one partition that sees
 * every service snapshot and the small configuration tables. Each input re-evaluates exactly the
 * entities that depend on it (R-AGG-6), from services to sources, composites and consumers.
 */
final class AggregateHealthProcessor implements Processor<String, byte[], String, Out> {
  static final String SERVICES = "aggregate-services";
  static final String SERVICE_COUNTS = "aggregate-service-counts";
  static final String POLICIES = "aggregate-policies";
  static final String SOURCES = "aggregate-sources";
  static final String COMPOSITES = "aggregate-composites";
  static final String FORWARDING_RULES = "aggregate-forwarding-rules";
  static final String CONFIG_OFFSETS = "aggregate-config-offsets";
  static final String FAILOVERS = "aggregate-failovers";

  private final TopologySerdes serdes;
  private final Metrics metrics;
  private ProcessorContext<String, Out> context;
  private Publisher publisher;
  private MirroredStore<ServiceSnapshot> services;
  /** Counts apart from configurations: they change on every endpoint transition, configurations rarely. */
  private MirroredStore<ServiceSnapshot> serviceCounts;
  private MirroredStore<HealthAggregationPolicy> policies;
  private MirroredStore<HealthSource> sources;
  private MirroredStore<CompositeHealthCheck> composites;
  private MirroredStore<ForwardingRule> forwardingRules;
  private KeyValueStore<String, Long> configOffsets;
  private KeyValueStore<String, ConsumerFailover> failovers;
  private final StreamsSettings settings;
  private PromptCommit prompt;

  AggregateHealthProcessor(TopologySerdes serdes, Metrics metrics, StreamsSettings settings) {
    this.serdes = serdes;
    this.metrics = metrics;
    this.settings = settings;
  }

  @Override
  public void init(ProcessorContext<String, Out> context) {
    this.context = context;
    this.prompt = new PromptCommit(context, settings.changeCommitDelay(), settings.changeCommitMaxLag());
    this.publisher = new Publisher(context, metrics, Publisher.PUBLISHED, prompt);
    this.services = new MirroredStore<>(context, SERVICES);
    this.serviceCounts = new MirroredStore<>(context, SERVICE_COUNTS);
    this.policies = new MirroredStore<>(context, POLICIES);
    this.sources = new MirroredStore<>(context, SOURCES);
    this.composites = new MirroredStore<>(context, COMPOSITES);
    this.forwardingRules = new MirroredStore<>(context, FORWARDING_RULES);
    this.configOffsets = context.getStateStore(CONFIG_OFFSETS);
    this.failovers = context.getStateStore(FAILOVERS);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    prompt.processed(record.timestamp());
    Kind kind = AggregateInput.kindOf(record.key());
    String name = AggregateInput.nameOf(record.key());
    Instant time = Instant.ofEpochMilli(record.timestamp());
    Affected affected = new Affected();
    if (kind == Kind.SERVICE) {
      ServiceSnapshot snapshot = serdes.snapshotReader.deserialize(TopologySerdes.AGGREGATE_INPUT_SUBJECT_TOPIC, record.value());
      Origin origin = new Origin(snapshot.getTriggerTopic() == null ? "" : snapshot.getTriggerTopic(),
          orMinusOne(snapshot.getTriggerPartition()), orMinusOne(snapshot.getTriggerOffset()), record.timestamp());
      applyService(name, snapshot, time, affected);
      evaluate(affected, Causes.of(serviceReason(origin), origin), time);
      return;
    }
    Origin origin = origin(record.headers(), kind, record.timestamp());
    boolean applied;
    try {
      applied = applyConfig(kind, name, record.value(), origin, time, affected);
    } catch (AvroDeserializationException e) {
      deadLetter(DeadLetters.reasonOf(e), e.at(origin.partition(), origin.offset()).getMessage(), origin, name, record.value());
      return;
    }
    if (applied) {
      TransitionReason reason = kind == Kind.POLICY ? TransitionReason.POLICY_CHANGE : TransitionReason.MEMBERSHIP_CHANGE;
      evaluate(affected, Causes.of(record.value() == null ? TransitionReason.CONFIG_DELETED : reason, origin), time);
    }
  }

  private void applyService(String name, ServiceSnapshot snapshot, Instant time, Affected affected) {
    if (snapshot.getCountsOnly()) {
      serviceCounts.put(name, snapshot);
    } else if (snapshot.getConfig() == null) {
      services.delete(name);
      serviceCounts.delete(name);
      publisher.delete(new EntityKey(EntityKind.BACKEND_SERVICE, name), time);
    } else {
      services.put(name, snapshot);
      serviceCounts.put(name, ServiceSnapshot.newBuilder(snapshot).setConfig(null).setCountsOnly(true).build());
    }
    affected.services.add(name);
  }

  /** Validates and stores one configuration record; false when it was rejected. */
  private boolean applyConfig(Kind kind, String name, byte[] value, Origin origin, Instant time, Affected affected) {
    List<String> problems = switch (kind) {
      case POLICY -> {
        HealthAggregationPolicy p = value == null ? null : serdes.policies.deserialize(kind.topic, value);
        yield accept(policies, name, p, p == null ? List.of() : ConfigRules.policy(name, p), affected.policies);
      }
      case SOURCE -> {
        HealthSource s = value == null ? null : serdes.sources.deserialize(kind.topic, value);
        ServiceSnapshot service = s == null ? null : services.get(s.getBackendService());
        yield accept(sources, name, s, s == null ? List.of() : ConfigRules.healthSource(name, s,
            service == null ? null : service.getConfig(), policies.get(s.getHealthAggregationPolicy())), affected.sources);
      }
      case COMPOSITE -> {
        CompositeHealthCheck c = value == null ? null : serdes.composites.deserialize(kind.topic, value);
        CompositeHealthCheck old = composites.get(name);
        List<String> found = c == null ? List.of() : ConfigRules.composite(name, c,
            c.getHealthSources().stream().map(sources::get).filter(s -> s != null).toList(),
            !ConfigRules.holdsDestination(c) ? null : first(composites, other -> !other.getName().equals(name)
                && ConfigRules.holdsDestination(other) && other.getHealthDestination().equals(c.getHealthDestination())),
            forwardingRules.get(c.getHealthDestination()));
        if (found.isEmpty() && old != null) {
          affected.destinations.add(old.getHealthDestination());
        }
        yield accept(composites, name, c, found, affected.composites);
      }
      case FORWARDING_RULE -> {
        ForwardingRule r = value == null ? null : serdes.forwardingRules.deserialize(kind.topic, value);
        yield accept(forwardingRules, name, r, r == null ? List.of() : ConfigRules.forwardingRule(name, r),
            affected.forwardingRules);
      }
      default -> throw new IllegalStateException("unexpected " + kind);
    };
    if (!problems.isEmpty()) {
      deadLetter(DeadLetterReason.INVALID, kind + " " + name + " rejected, previous version stays: "
          + String.join("; ", problems), origin, name, value);
      return false;
    }
    configOffsets.put(AggregateInput.key(kind, name), origin.offset());
    return true;
  }

  /** Stores a valid record (null deletes) and notes it as affected; returns the problems. */
  private static <V> List<String> accept(MirroredStore<V> store, String name, V value, List<String> problems,
      Set<String> affected) {
    if (problems.isEmpty()) {
      store.putOrDelete(name, value);
      affected.add(name);
    }
    return problems;
  }

  /** Follows the dependencies: services, policies -> sources -> composites -> consumers; services -> rules. */
  private void evaluate(Affected a, TransitionCause.Builder cause, Instant time) {
    for (String service : a.services) {
      publishService(service, cause, time);
      a.sources.addAll(names(sources, s -> s.getBackendService().equals(service)));
      a.consumers.add(service);
    }
    for (String policy : a.policies) {
      a.sources.addAll(names(sources, s -> s.getHealthAggregationPolicy().equals(policy)));
    }
    for (String source : a.sources) {
      publishSource(source, cause, time);
      a.composites.addAll(names(composites, c -> c.getHealthSources().contains(source)));
    }
    for (String composite : a.composites) {
      publishComposite(composite, cause, time);
      CompositeHealthCheck c = composites.get(composite);
      if (c != null) {
        a.destinations.add(c.getHealthDestination());
      }
    }
    // A load balancer's own health (R-DNSHC-2/3) is judged in the per-service stage; here a
    // rule only matters as a composite's destination.
    a.destinations.addAll(a.forwardingRules);
    for (String destination : a.destinations) {
      a.consumers.addAll(names(services, s -> s.getConfig() != null && s.getConfig().getPscBackends().stream()
          .anyMatch(p -> p.getForwardingRule().equals(destination))));
    }
    for (String consumer : a.consumers) {
      publishConsumer(consumer, cause, time);
    }
  }

  private void publishService(String name, TransitionCause.Builder cause, Instant time) {
    ServiceSnapshot s = services.get(name);
    if (s == null) {
      return;
    }
    Aggregation.Counts counts = counts(name);
    HealthStatus status = Aggregation.status(counts, Aggregation.DEFAULT);
    publisher.publish(new EntityKey(EntityKind.BACKEND_SERVICE, name), status, counts, s.getConfig().getRegion(),
        copy(cause).setHealthyPercentThreshold(Aggregation.DEFAULT.healthyPercent())
            .setMinHealthyThreshold(Aggregation.DEFAULT.minHealthy())
            .setDetail(Causes.detail(counts, Aggregation.DEFAULT, "default thresholds (R-AGG-1, R-AGG-2)")), time);
  }

  /** R-CH-1: a source's state is its service's state under its policy. */
  private void publishSource(String name, TransitionCause.Builder cause, Instant time) {
    EntityKey key = new EntityKey(EntityKind.HEALTH_SOURCE, name);
    HealthSource source = sources.get(name);
    if (source == null) {
      publisher.delete(key, time);
      metrics.sourceMargin(name, null, 0);
      return;
    }
    ServiceSnapshot service = services.get(source.getBackendService());
    HealthAggregationPolicy policy = policies.get(source.getHealthAggregationPolicy());
    if (service == null || policy == null) {
      publisher.publish(key, HealthStatus.UNKNOWN, new Aggregation.Counts(0, 0, 0), source.getRegion(),
          copy(cause).setDetail("waiting for " + (service == null ? "backend service " + source.getBackendService()
              : "policy " + source.getHealthAggregationPolicy())), time);
      return;
    }
    Aggregation.Thresholds t = new Aggregation.Thresholds(policy.getHealthyPercentThreshold(),
        policy.getMinHealthyThreshold(), false);
    Aggregation.Counts counts = counts(source.getBackendService());
    metrics.sourceMargin(name, source.getRegion(), Aggregation.margin(counts, t));
    publisher.publish(key, Aggregation.status(counts, t), counts, source.getRegion(),
        copy(cause).setHealthyPercentThreshold(t.healthyPercent()).setMinHealthyThreshold(t.minHealthy())
            .setPolicyName(policy.getName())
            .setPolicyVersion(configOffsets.get(AggregateInput.key(Kind.POLICY, policy.getName())))
            .setDetail(Causes.detail(counts, t, "policy " + policy.getName() + " (R-AGG-2, R-AGG-3)")), time);
  }

  /** R-CH-4, R-OP-4: the sources' states under the composite's style, three-valued. */
  private void publishComposite(String name, TransitionCause.Builder cause, Instant time) {
    CompositeHealthCheck c = composites.get(name);
    for (EntityKind kind : List.of(EntityKind.COMPOSITE_HEALTH_CHECK, EntityKind.DRY_RUN_COMPOSITE_HEALTH_CHECK)) {
      if (c == null || kind != ConfigRules.compositeKind(c)) {
        publisher.delete(new EntityKey(kind, name), time); // gone, or moved between live and dry run (R-OP-5)
      }
    }
    if (c == null) {
      metrics.compositeMargin(name, null, null, 0);
      return;
    }
    EntityKey key = new EntityKey(ConfigRules.compositeKind(c), name);
    java.util.function.Function<String, HealthStatus> statusOf =
        s -> sources.get(s) == null ? HealthStatus.UNKNOWN : publisher.statusOf(EntityKind.HEALTH_SOURCE, s);
    Aggregation.Counts counts = Aggregation.count(c.getHealthSources().stream().map(statusOf).toList());
    Aggregation.Style style = Aggregation.Style.of(c, statusOf);
    metrics.compositeMargin(name, c.getRegion(), style.name(), Aggregation.compositeMargin(counts, style));
    publisher.publish(key, Aggregation.composite(counts, style), counts, c.getRegion(),
        copy(cause).setPolicyName(name)
            .setPolicyVersion(configOffsets.get(AggregateInput.key(Kind.COMPOSITE, name)))
            .setDetail(Causes.compositeDetail(counts, style, c.getCriticalSources())), time);
  }

  /** R-CH-8: each PSC NEG takes its published service's composite state; the consumer fails over. */
  private void publishConsumer(String name, TransitionCause.Builder cause, Instant time) {
    ServiceSnapshot consumer = services.get(name);
    List<PscBackend> backends = consumer == null || consumer.getConfig() == null
        ? List.of() : consumer.getConfig().getPscBackends();
    ConsumerFailover old = failovers.get(name);
    if (backends.isEmpty()) {
      if (old != null) {
        old.getNegs().forEach(n -> publisher.delete(new EntityKey(EntityKind.CONSUMER_NEG, name + "/" + n.getName()), time));
        failovers.delete(name);
        context.forward(new Record<>(name, new Out.Failover(name, null), time.toEpochMilli()));
        prompt.changed();
      }
      return;
    }
    List<NegState> negs = new ArrayList<>();
    for (PscBackend b : backends) {
      String composite = first(composites, c -> c.getHealthDestination().equals(b.getForwardingRule())
          && ConfigRules.holdsDestination(c));
      HealthStatus status = composite == null ? HealthStatus.UNKNOWN
          : publisher.statusOf(EntityKind.COMPOSITE_HEALTH_CHECK, composite);
      negs.add(new NegState(b.getNegName(), b.getRegion(), status));
      publisher.publish(new EntityKey(EntityKind.CONSUMER_NEG, name + "/" + b.getNegName()), status,
          new Aggregation.Counts(0, 0, 0), b.getRegion(), copy(cause).setPolicyName(composite)
              .setDetail(composite == null ? "no composite health check publishes to " + b.getForwardingRule() + " (R-CH-8)"
                  : "state of composite health check " + composite + " (R-CH-8)"), time);
    }
    List<String> active = activeRegions(negs);
    ConsumerFailover decision = new ConsumerFailover(time, active, negs);
    if (old == null || !old.getActiveRegions().equals(active) || !old.getNegs().equals(negs)) {
      failovers.put(name, decision);
      context.forward(new Record<>(name, new Out.Failover(name, decision), time.toEpochMilli()));
      prompt.changed();
    }
  }

  /** HEALTHY NEGs in preference order; else the UNKNOWN ones; else all of them (fail open). */
  static List<String> activeRegions(List<NegState> negs) {
    for (HealthStatus wanted : List.of(HealthStatus.HEALTHY, HealthStatus.UNKNOWN)) {
      List<String> regions = negs.stream().filter(n -> n.getStatus() == wanted).map(NegState::getRegion).distinct().toList();
      if (!regions.isEmpty()) {
        return regions;
      }
    }
    return negs.stream().map(NegState::getRegion).distinct().toList();
  }

  private Aggregation.Counts counts(String service) {
    ServiceSnapshot s = serviceCounts.get(service);
    return s == null ? new Aggregation.Counts(0, 0, 0) : new Aggregation.Counts(s.getHealthy(), s.getUnhealthy(), s.getUnknown());
  }

  private static TransitionReason serviceReason(Origin origin) {
    if (Topics.BACKEND_SERVICES.name().equals(origin.topic())) {
      return TransitionReason.MEMBERSHIP_CHANGE;
    }
    return origin.offset() < 0 ? TransitionReason.STALE : TransitionReason.MEMBER_STATE;
  }

  private static TransitionCause.Builder copy(TransitionCause.Builder cause) {
    return TransitionCause.newBuilder(cause);
  }

  private void deadLetter(DeadLetterReason reason, String message, Origin origin, String key, byte[] value) {
    DeadLetters.forward(context, metrics, Topics.CONFIG_DLQ.name(), reason, message, origin, key, value);
  }

  private static Origin origin(Headers headers, Kind kind, long timestamp) {
    return new Origin(kind.topic, (int) header(headers, AggregateInput.ORIGIN_PARTITION),
        header(headers, AggregateInput.ORIGIN_OFFSET), timestamp);
  }

  private static long header(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    return h == null ? -1 : Long.parseLong(new String(h.value(), StandardCharsets.UTF_8));
  }

  private static int orMinusOne(Integer value) {
    return value == null ? -1 : value;
  }

  private static long orMinusOne(Long value) {
    return value == null ? -1 : value;
  }

  private static <V> List<String> names(MirroredStore<V> store, Predicate<V> wanted) {
    List<String> names = new ArrayList<>();
    store.all().forEach((key, value) -> {
      if (wanted.test(value)) {
        names.add(key);
      }
    });
    return names;
  }

  private static <V> String first(MirroredStore<V> store, Predicate<V> wanted) {
    List<String> found = names(store, wanted);
    return found.isEmpty() ? null : found.get(0);
  }

  /** What one input touches, filled in as the dependencies are followed; insertion-ordered for replays. */
  private static final class Affected {
    final Set<String> services = new LinkedHashSet<>();
    final Set<String> policies = new LinkedHashSet<>();
    final Set<String> sources = new LinkedHashSet<>();
    final Set<String> composites = new LinkedHashSet<>();
    final Set<String> forwardingRules = new LinkedHashSet<>();
    final Set<String> destinations = new LinkedHashSet<>();
    final Set<String> consumers = new LinkedHashSet<>();
  }

}
