package io.healthmesh.edge.log;

import io.healthmesh.edge.answer.Responder;
import io.healthmesh.edge.routing.Address;
import io.healthmesh.edge.routing.Decision;
import io.healthmesh.edge.state.RecordSetEntry;
import io.healthmesh.events.AddressHealth;
import io.healthmesh.events.DnsDecision;
import io.healthmesh.events.RoutingPolicyType;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.xbill.DNS.Name;
import org.xbill.DNS.Type;

/**
 * Counts every routing decision by policy and reason, and writes a sample of them to
 * {@code dns-decisions} with each address's health (health-check logging, R-DNSHC-6). A query
 * thread only offers the record to a bounded queue that one thread sends from: a slow or absent
 * broker never delays an answer, it only loses log lines (counted).
 */
public final class DecisionLog implements Responder.DecisionListener, AutoCloseable {
  private final LogOrigin origin;
  private final MeterRegistry meters;
  private final BoundedSender<DnsDecision> sender;
  private final Map<Integer, Counter> answers = new ConcurrentHashMap<>();

  public DecisionLog(LogOrigin origin, SchemaRegistryClient registry, MeterRegistry meters) {
    this.origin = origin;
    this.meters = meters;
    this.sender = origin.decisionSampleRate() > 0 ? new BoundedSender<>(Topics.DNS_DECISIONS,
        origin.kafka(), registry, meters.counter("healthmesh.dns.decisions.dropped")) : null;
  }

  @Override
  public void decided(Name name, int type, String sourceRegion, String clientSubnet, RecordSetEntry entry,
      Decision decision) {
    RoutingPolicyType policy = entry.plan().policyType();
    answers.computeIfAbsent(policy.ordinal() * 64 + decision.reason().ordinal(), k -> meters.counter(
        "healthmesh.dns.answers", "policy", policy.name(), "reason", decision.reason().name())).increment();
    long unknown = decision.unknownReturned();
    if (unknown > 0) {
      meters.counter("healthmesh.dns.unknown.targets.returned").increment(unknown);
    }
    log(name, type, sourceRegion, clientSubnet, policy, entry.version(), decision, false, false);
  }

  /** R-OP-5: counted by what the dry run would have answered, and logged beside the live decisions. */
  @Override
  public void dryRun(Name name, int type, String sourceRegion, String clientSubnet, RecordSetEntry entry,
      Decision dryRun, boolean differs) {
    RoutingPolicyType policy = entry.dryRun().plan().policyType();
    meters.counter("healthmesh.dns.dry.run.answers", "policy", policy.name(), "reason", dryRun.reason().name(),
        "differs", Boolean.toString(differs)).increment();
    log(name, type, sourceRegion, clientSubnet, policy, entry.dryRun().version(), dryRun, true, differs);
  }

  private void log(Name name, int type, String sourceRegion, String clientSubnet, RoutingPolicyType policy,
      long version, Decision decision, boolean dryRun, boolean differs) {
    if (sender == null || ThreadLocalRandom.current().nextDouble() >= origin.decisionSampleRate()) {
      return;
    }
    List<AddressHealth> addresses = decision.considered().stream().filter(Address::checked)
        .map(a -> new AddressHealth(a.rrdata(), a.status(), decision.answer().contains(a.rrdata()))).toList();
    DnsDecision record = DnsDecision.newBuilder().setTime(Instant.now()).setEdge(origin.edge())
        .setEdgeRegion(origin.region()).setQueryName(name.toString()).setQueryType(Type.string(type))
        .setClientSubnet(clientSubnet).setSourceRegion(sourceRegion).setPolicy(policy).setPolicyVersion(version)
        .setBucket(decision.bucket()).setReason(decision.reason()).setAddresses(addresses).setDryRun(dryRun)
        .setDiffers(differs).build();
    sender.offer(record.getQueryName(), record);
  }

  @Override
  public void close() {
    if (sender != null) {
      sender.close();
    }
  }
}
