package io.healthmesh.streams.endpoint;

import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.net.IpAddress;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.codec.MovedRecords;
import io.healthmesh.streams.codec.Origin;
import io.healthmesh.streams.codec.ProbeDecoder;
import io.healthmesh.streams.codec.ServiceInput;
import io.healthmesh.streams.output.DeadLetters;
import io.healthmesh.streams.output.Metrics;
import io.healthmesh.streams.output.Out;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * A probe result through its endpoint's state machine (R-EP-1 to R-EP-6). Most results change
 * nothing and stop here; a change is published, and a changed status recounts the service.
 */
final class ProbeHandler {
  private final ProcessorContext<String, Out> context;
  private final ProbeDecoder decoder;
  private final Duration maxClockSkew;
  private final EndpointTable endpoints;
  private final Owners owners;
  private final EndpointPublisher publisher;
  private final ServiceCounts counts;
  private final StaleSweep sweep;
  private final Metrics metrics;

  ProbeHandler(ProcessorContext<String, Out> context, ProbeDecoder decoder, Duration maxClockSkew,
      EndpointTable endpoints, Owners owners, EndpointPublisher publisher, ServiceCounts counts, StaleSweep sweep,
      Metrics metrics) {
    this.context = context;
    this.decoder = decoder;
    this.maxClockSkew = maxClockSkew;
    this.endpoints = endpoints;
    this.owners = owners;
    this.publisher = publisher;
    this.counts = counts;
    this.sweep = sweep;
    this.metrics = metrics;
  }

  void apply(Record<String, ServiceInput> record, byte[] value, Origin origin) {
    String keyProblem = MovedRecords.keyProblemOf(record.headers());
    if (keyProblem != null) {
      deadLetter(DeadLetterReason.INVALID, keyProblem, origin, record.key(), value);
      return;
    }
    ProbeResult probe;
    try {
      probe = decoder.deserialize(origin.topic(), value);
    } catch (AvroDeserializationException e) {
      deadLetter(DeadLetters.reasonOf(e), e.at(origin.partition(), origin.offset()).getMessage(), origin, record.key(), value);
      return;
    }
    if (probe == null) {
      deadLetter(DeadLetterReason.MALFORMED, "probe result without a value", origin, record.key(), value);
      return;
    }
    if (probe.getType() == ProbeRecordType.HEARTBEAT) {
      String skewed = skewProblem(probe, origin);
      if (skewed != null) {
        deadLetter(DeadLetterReason.INVALID, "heartbeat " + skewed, origin, record.key(), value);
        return;
      }
      metrics.heartbeat();
      sweep.advance(record.timestamp());
      return;
    }
    boolean external = isExternal(probe.getBackendService());
    if (external) {
      // One spelling of an address for every prober and record set (R-DNSHC-1).
      probe.setEndpointId(IpAddress.canonicalOrSame(probe.getEndpointId()));
    }
    String problem = probeProblem(record.key(), probe, origin);
    if (problem != null) {
      deadLetter(DeadLetterReason.INVALID, problem, origin, record.key(), value);
      return;
    }
    // The key, equal to the service after the checks above, already has its hash computed.
    String service = record.key() == null ? probe.getBackendService() : record.key();
    Owners.Owner owner = owners.of(external ? "" : service, probe.getEndpointId());
    if (owner == null) {
      deadLetter(DeadLetterReason.UNKNOWN_ENTITY, (external
          ? "external endpoint " + probe.getEndpointId() + " is not health checked by any record set"
          : "endpoint " + probe.getBackendService() + "/" + probe.getEndpointId() + " is not in the configuration")
          + " (R-EP-6)", origin, record.key(), value);
      return;
    }
    // R-EP-4, R-EP-5: a result dated after its record's time (the broker's, on a topic with
    // LogAppendTime) counts as made at that time, so a prober's fast clock cannot put an
    // endpoint's last result in the future and have the honest results after it ignored.
    long eventTime = Math.min(probe.getEventTime().toEpochMilli(), record.timestamp());
    EndpointState state = endpoints.get(owner.service(), owner.endpoint());
    sweep.dropOutsBefore(state, record.timestamp());
    String prober = probe.getProber();
    if (EndpointStateMachine.isOutOfOrder(state, prober, eventTime)) {
      metrics.outOfOrder(); // R-EP-5: counted, never applied
      return;
    }
    boolean first = state == null;
    if (first) {
      state = endpoints.create(owner.service(), owner.endpoint(), owner.ordinal());
    }
    HealthStatus before = state.status;
    EndpointStateMachine.Change change =
        EndpointStateMachine.apply(state, first, prober, probe.getSuccess(), eventTime, record.timestamp(), owner.spec());
    endpoints.save(state);
    metrics.applied();
    if (change != null || first) {
      Instant at = Instant.ofEpochMilli(eventTime); // only for a change: most probes change nothing
      publisher.publish(owner, before, state, change, origin, at);
      if (state.status != before && owner.config() != null) {
        counts.changed(owner.config(), at, origin);
      }
    }
    sweep.advance(record.timestamp());
  }

  private String probeProblem(String key, ProbeResult probe, Origin origin) {
    if (probe.getEndpointId().isBlank()) {
      return "endpointId is missing (R-EP-1)";
    }
    boolean external = isExternal(probe.getBackendService());
    String expectedKey = external ? probe.getEndpointId() : probe.getBackendService();
    if (key != null && !expectedKey.equals(key) && !(external && expectedKey.equals(IpAddress.canonical(key)))) {
      return "record key '" + key + "' is not '" + expectedKey
          + "'; probe results are keyed by backend service, or by address for an external endpoint";
    }
    return skewProblem(probe, origin);
  }

  /** R-EP-4: an event time this far after its record's time says the prober's clock is wrong. */
  private String skewProblem(ProbeResult probe, Origin origin) {
    long skew = probe.getEventTime().toEpochMilli() - origin.timestamp();
    if (skew > maxClockSkew.toMillis()) {
      return "eventTime " + probe.getEventTime() + " is " + Duration.ofMillis(skew) + " after the record's time "
          + Instant.ofEpochMilli(origin.timestamp()) + "; more than the allowed " + maxClockSkew
          + " (R-EP-4: is the prober's clock right?)";
    }
    return null;
  }

  private void deadLetter(DeadLetterReason reason, String message, Origin origin, String key, byte[] value) {
    DeadLetters.forward(context, metrics, Topics.PROBE_RESULTS_DLQ.name(), reason, message, origin, key, value);
  }

  static boolean isExternal(String service) {
    return service == null || service.isBlank();
  }
}
