package io.healthmesh.streams.ingest;

import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.internal.ExternalEndpointRef;
import io.healthmesh.net.IpAddress;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.codec.Origin;
import io.healthmesh.streams.codec.TopologySerdes;
import io.healthmesh.streams.output.DeadLetters;
import io.healthmesh.streams.output.Metrics;
import io.healthmesh.streams.output.Out;
import io.healthmesh.streams.rules.DnsTargets;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Finds the external endpoints (addresses probed directly, R-DNSHC-1) that record sets health
 * check, and tells each endpoint's probe partition which record sets use it and how to check it
 * (R-DNSHC-4). Remembers each record set's addresses so that dropping one is noticed.
 */
public final class ExternalTargetsProcessor implements Processor<String, byte[], String, Out> {
  public static final String RECORD_SET_ADDRESSES = "record-set-external-endpoints";

  private final TopologySerdes serdes;
  private final Metrics metrics;
  private ProcessorContext<String, Out> context;
  private KeyValueStore<String, String> addresses;

  public ExternalTargetsProcessor(TopologySerdes serdes, Metrics metrics) {
    this.serdes = serdes;
    this.metrics = metrics;
  }

  @Override
  public void init(ProcessorContext<String, Out> context) {
    this.context = context;
    this.addresses = context.getStateStore(RECORD_SET_ADDRESSES);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    RecordMetadata m = context.recordMetadata().orElseThrow();
    Origin origin = new Origin(m.topic(), m.partition(), m.offset(), record.timestamp());
    String key = record.key() == null ? "" : record.key();
    ResourceRecordSet rrs = null;
    if (record.value() != null) {
      try {
        rrs = serdes.recordSets.deserialize(m.topic(), record.value());
      } catch (AvroDeserializationException e) {
        deadLetter(DeadLetters.reasonOf(e), e.at(m.partition(), m.offset()).getMessage(), origin, key, record.value());
        return;
      }
    }
    List<String> now = rrs == null ? List.of() : DnsTargets.externalEndpoints(rrs);
    List<String> invalid = now.stream().filter(a -> IpAddress.parse(a) == null).toList();
    if (!invalid.isEmpty()) {
      deadLetter(DeadLetterReason.INVALID, "ResourceRecordSet " + key + " rejected by the health topology: external endpoints "
          + invalid + " are not IP addresses (R-DNSHC-1)", origin, key, record.value());
      return;
    }
    String before = addresses.get(key);
    List<String> was = before == null || before.isEmpty() ? List.of() : Arrays.asList(before.split(","));
    HealthCheckSpec spec = rrs == null ? null : DnsTargets.spec(rrs.getRoutingPolicy());
    for (String address : was) {
      if (!now.contains(address)) {
        forward(address, new ExternalEndpointRef(key, null, true), record.timestamp());
      }
    }
    for (String address : now) {
      forward(address, new ExternalEndpointRef(key, spec, false), record.timestamp());
    }
    if (now.isEmpty()) {
      addresses.delete(key);
    } else {
      addresses.put(key, String.join(",", now));
    }
  }

  private void forward(String address, ExternalEndpointRef ref, long timestamp) {
    context.forward(new Record<>(address, new Out.ExternalRef(address, ref), timestamp));
  }

  private void deadLetter(DeadLetterReason reason, String message, Origin origin, String key, byte[] value) {
    DeadLetters.forward(context, metrics, Topics.CONFIG_DLQ.name(), reason, message, origin, key, value);
  }
}
