package io.healthmesh.streams;

import io.healthmesh.streams.rules.Addresses;
import io.healthmesh.config.GeoItem;
import io.healthmesh.config.GeoPolicy;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.internal.ExternalEndpointRef;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.DeadLetters.Origin;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
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
final class ExternalTargetsProcessor implements Processor<String, byte[], String, Out> {
  static final String RECORD_SET_ADDRESSES = "record-set-external-endpoints";
  /** R-DNSHC-4: external endpoints are checked every 30 s unless the record set says otherwise. */
  static final int DEFAULT_INTERVAL_SEC = 30;

  private final TopologySerdes serdes;
  private final Metrics metrics;
  private ProcessorContext<String, Out> context;
  private KeyValueStore<String, String> addresses;

  ExternalTargetsProcessor(TopologySerdes serdes, Metrics metrics) {
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
    List<String> now = rrs == null ? List.of() : externalEndpoints(rrs);
    List<String> invalid = now.stream().filter(a -> !Addresses.isIp(a)).toList();
    if (!invalid.isEmpty()) {
      deadLetter(DeadLetterReason.INVALID, "ResourceRecordSet " + key + " rejected by the health topology: external endpoints "
          + invalid + " are not IP addresses (R-DNSHC-1)", origin, key, record.value());
      return;
    }
    String before = addresses.get(key);
    List<String> was = before == null || before.isEmpty() ? List.of() : Arrays.asList(before.split(","));
    HealthCheckSpec spec = rrs == null ? null : spec(rrs.getRoutingPolicy());
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
    byte[] bytes = serdes.externalRefs.serialize(TopologySerdes.EXTERNAL_REFS_SUBJECT_TOPIC, ref);
    context.forward(new Record<>(address, new Out.ExternalRef(address, bytes), timestamp));
  }

  private void deadLetter(DeadLetterReason reason, String message, Origin origin, String key, byte[] value) {
    DeadLetters.forward(context, metrics, Topics.CONFIG_DLQ.name(), reason, message, origin, key, value);
  }

  /** Every external endpoint a record set health checks, in a stable order. */
  static List<String> externalEndpoints(ResourceRecordSet rrs) {
    RoutingPolicy policy = rrs.getRoutingPolicy();
    TreeSet<String> found = new TreeSet<>();
    if (policy == null) {
      return List.of();
    }
    List<HealthCheckedTargets> targets = new ArrayList<>();
    if (policy.getWrr() != null) {
      policy.getWrr().getItems().stream().map(WrrItem::getHealthCheckedTargets).forEach(targets::add);
    }
    geoTargets(policy.getGeo(), targets);
    if (policy.getPrimaryBackup() != null) {
      targets.add(policy.getPrimaryBackup().getPrimaryTargets());
      geoTargets(policy.getPrimaryBackup().getBackupGeoTargets(), targets);
    }
    targets.stream().filter(t -> t != null).forEach(t -> found.addAll(t.getExternalEndpoints()));
    return new ArrayList<>(found);
  }

  private static void geoTargets(GeoPolicy geo, List<HealthCheckedTargets> targets) {
    if (geo != null) {
      geo.getItems().stream().map(GeoItem::getHealthCheckedTargets).forEach(targets::add);
    }
  }

  static HealthCheckSpec spec(RoutingPolicy policy) {
    if (policy != null && policy.getHealthCheck() != null) {
      return policy.getHealthCheck();
    }
    return HealthCheckSpec.newBuilder().setCheckIntervalSec(DEFAULT_INTERVAL_SEC).build();
  }
}
