package io.healthmesh.streams.endpoint;

import io.healthmesh.internal.ForwardingRuleRef;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.streams.codec.MovedRecords;
import io.healthmesh.streams.codec.Origin;
import io.healthmesh.streams.codec.ServiceInput;
import io.healthmesh.streams.codec.TopologySerdes;
import io.healthmesh.streams.output.Emitter;
import io.healthmesh.streams.output.Metrics;
import io.healthmesh.streams.output.Out;
import io.healthmesh.streams.output.PromptCommit;
import io.healthmesh.streams.output.Publisher;
import io.healthmesh.streams.store.CommitHook;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * The per-service stage (docs/rules.md section 1): probe results and backend-service configuration, both
 * keyed and partitioned by backend service, so an endpoint's state and its service's counts live
 * in one task. Hands each input to its handler by its type; only state changes go on.
 */
public final class PerServiceProcessor implements Processor<String, ServiceInput, String, Out> {
  /** What the stage is configured with. */
  public record Settings(EndpointWrites writes, Duration maxClockSkew, Duration staleCheckInterval,
      PromptCommit.Timing commits) {}

  private final TopologySerdes serdes;
  private final Settings settings;
  private final Metrics metrics;
  private ProcessorContext<String, Out> context;
  private PromptCommit prompt;
  private Owners owners;
  private ServiceCounts counts;
  private ProbeHandler probes;
  private ServiceConfigs services;
  private ExternalEndpoints externals;
  private LoadBalancers loadBalancers;

  public PerServiceProcessor(TopologySerdes serdes, Settings settings, Metrics metrics) {
    this.serdes = serdes;
    this.settings = settings;
    this.metrics = metrics;
  }

  @Override
  public void init(ProcessorContext<String, Out> context) {
    this.context = context;
    EndpointTable endpoints = new EndpointTable(context, PerServiceStores.ENDPOINTS, settings.writes());
    if (settings.writes() == EndpointWrites.AT_COMMIT) {
      context.<CommitHook>getStateStore(PerServiceStores.COMMIT_HOOK).beforeCommit(endpoints::flush);
    }
    prompt = new PromptCommit(context, settings.commits());
    Emitter emitter = new Emitter(context, metrics, prompt);
    EndpointPublisher publisher = new EndpointPublisher(emitter, metrics);
    owners = new Owners(context);
    loadBalancers = new LoadBalancers(context, new Publisher(context, PerServiceStores.PUBLISHED_TARGETS, emitter));
    counts = new ServiceCounts(endpoints, emitter, loadBalancers);
    StaleSweep sweep = new StaleSweep(context, settings.staleCheckInterval(), endpoints, owners, publisher, counts,
        metrics);
    probes = new ProbeHandler(context, serdes.probes, settings.maxClockSkew(), endpoints, owners, publisher, counts,
        sweep, metrics);
    services = new ServiceConfigs(context, serdes.backendServices, endpoints, owners, publisher, counts, loadBalancers,
        metrics);
    externals = new ExternalEndpoints(endpoints, owners, publisher);
  }

  @Override
  public void process(Record<String, ServiceInput> record) {
    prompt.processed(record.timestamp());
    ServiceInput input = record.value();
    Origin origin = origin(record, input.moved());
    if (input instanceof ServiceInput.Probe probe) {
      probes.apply(record, probe.value(), origin);
    } else if (input instanceof ServiceInput.Service service) {
      services.apply(record.key(), service.value(), origin);
    } else if (input instanceof ServiceInput.ExternalRef ref) {
      externals.apply(record.key(), ref.ref(), origin);
    } else if (input instanceof ServiceInput.RuleRef ref) {
      ruleRef(record.key(), ref.ref(), origin);
    }
  }

  private void ruleRef(String service, ForwardingRuleRef ref, Origin origin) {
    ServiceSnapshot snapshot = ref.getRule() == null ? null : owners.service(service);
    ServiceSnapshot serviceCounts = snapshot == null || snapshot.getConfig() == null ? null
        : counts.snapshot(snapshot.getConfig(), true, Instant.ofEpochMilli(origin.timestamp()), origin);
    loadBalancers.apply(service, ref, serviceCounts, origin);
  }

  /**
   * Where the record was read; for one moved from another partition, where it was read first,
   * so that a moved backend service is applied as one and a moved probe's dead letter names its
   * place in {@code probe-results}.
   */
  private Origin origin(Record<String, ServiceInput> record, boolean moved) {
    if (moved) {
      Origin first = MovedRecords.originOf(record.headers(), record.timestamp());
      if (first != null) {
        return first;
      }
    }
    RecordMetadata m = context.recordMetadata().orElseThrow();
    return new Origin(m.topic(), m.partition(), m.offset(), record.timestamp());
  }
}
