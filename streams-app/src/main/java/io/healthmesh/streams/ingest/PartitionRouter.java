package io.healthmesh.streams.ingest;

import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.net.IpAddress;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.KeyPartitions;
import io.healthmesh.schemas.RegistryException;
import io.healthmesh.schemas.RegistryUnavailableException;
import io.healthmesh.schemas.Topics;
import io.healthmesh.schemas.WireFormat;
import io.healthmesh.streams.codec.MovedRecords;
import io.healthmesh.streams.codec.ServiceInput;
import io.healthmesh.streams.codec.TopologySerdes;
import io.healthmesh.streams.output.DeadLetters;
import io.healthmesh.streams.output.Metrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Puts every probe result, and every backend service's configuration, where its service's state
 * lives, whichever client wrote it. Kafka's
 * Java producer partitions a key by murmur2; librdkafka's clients (kcat, Confluent's Python, Go
 * and .NET clients) by CRC32, and Confluent's Avro serializers frame the key first, so their
 * probes land elsewhere. A record already on its partition, as every probe from a Java producer
 * with a plain key is, goes straight on; any other is moved to its partition through an
 * internal topic, carrying where it was read so that dead letters and transitions still name
 * its place in {@code probe-results}. Keys may be plain UTF-8 or Avro strings in the Confluent
 * wire format; a keyless result goes to its service's partition, a heartbeat (which belongs to
 * the partition it was written to) stays. A configuration record is moved by its key alone.
 */
public final class PartitionRouter implements Processor<byte[], byte[], String, ServiceInput> {
  private final TopologySerdes serdes;
  private final Metrics metrics;
  private final int partitions;
  private final String here;
  private final String elsewhere;
  private final Function<byte[], ServiceInput> tag;
  private ProcessorContext<String, ServiceInput> context;

  /**
   * @param here the child (by name) for records already on their partition
   * @param elsewhere the child for records on their way to it
   * @param tag what the per-service stage takes the record for, here or once moved
   */
  public PartitionRouter(TopologySerdes serdes, Metrics metrics, int partitions, String here, String elsewhere,
      Function<byte[], ServiceInput> tag) {
    this.tag = tag;
    this.serdes = serdes;
    this.metrics = metrics;
    this.partitions = partitions;
    this.here = here;
    this.elsewhere = elsewhere;
  }

  @Override
  public void init(ProcessorContext<String, ServiceInput> context) {
    this.context = context;
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    RecordMetadata m = context.recordMetadata().orElseThrow();
    byte[] raw = record.key();
    String key;
    if (raw == null) {
      key = null;
    } else if (raw.length > WireFormat.HEADER_SIZE && raw[0] == WireFormat.MAGIC_BYTE) {
      try {
        key = avroString(m.topic(), raw);
      } catch (KeyProblem p) {
        MovedRecords.markKeyProblem(record.headers(), p.getMessage());
        forward(record, new String(raw, StandardCharsets.UTF_8), here);
        return;
      }
    } else {
      key = new String(raw, StandardCharsets.UTF_8);
    }
    if (key != null && key.indexOf(':') >= 0) {
      key = IpAddress.canonicalOrSame(key); // an IPv6 address, in the spelling its record set's check uses
    }
    if (partitions <= 1 || key != null && KeyPartitions.partition(key, partitions) == m.partition()) {
      forward(record, key, here);
      return;
    }
    // The rare path: a heartbeat, a keyless result, or one that another partitioner placed.
    String owner = ownerKey(m.topic(), key, record.value());
    if (owner == null || KeyPartitions.partition(owner, partitions) == m.partition()) {
      forward(record, key, here);
      return;
    }
    metrics.rerouted(m.topic());
    MovedRecords.markMoved(record.headers(), m.topic(), m.partition(), m.offset());
    forward(record, owner, elsewhere);
  }

  /** One new record, tagged, with the record's headers: this is every probe's path. */
  private void forward(Record<byte[], byte[]> record, String key, String child) {
    context.forward(new Record<>(key, tag.apply(record.value()), record.timestamp(), record.headers()), child);
  }

  /**
   * The key that decides where the record belongs: its own, or for a keyless result the one it
   * should have had. Null for a heartbeat, which stays, and for a record that cannot be read,
   * which stays to be dead-lettered where it is.
   */
  private String ownerKey(String topic, String key, byte[] value) {
    if (!topic.equals(Topics.PROBE_RESULTS.name())) {
      return key; // configuration: its key says where it belongs
    }
    ProbeResult probe;
    try {
      probe = serdes.probes.deserialize(topic, value);
    } catch (AvroDeserializationException e) {
      DeadLetters.reasonOf(e); // throws when the registry, not the record, failed
      return null;
    }
    if (probe == null || probe.getType() == ProbeRecordType.HEARTBEAT) {
      return null;
    }
    if (key != null) {
      return key;
    }
    String service = probe.getBackendService();
    return service == null || service.isBlank() ? IpAddress.canonicalOrSame(probe.getEndpointId()) : service;
  }

  /** A key framed like Confluent's Avro serializers frame it; its schema must be a string. */
  private String avroString(String topic, byte[] raw) {
    int id = WireFormat.schemaId(topic, raw);
    Schema schema;
    try {
      schema = serdes.registry.byId(id);
    } catch (RegistryException e) {
      if (e.errorCode() == RegistryException.SCHEMA_NOT_FOUND) {
        throw new KeyProblem("record key has schema id " + id + ", which the registry does not know");
      }
      throw new RegistryUnavailableException("key schema id " + id + ": " + e.getMessage(), e);
    }
    if (schema.getType() != Schema.Type.STRING) {
      throw new KeyProblem("record key has schema id " + id + " of type " + schema.getType().getName()
          + "; keys here are strings (a backend service's name, or an external endpoint's address)");
    }
    try {
      BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(raw, WireFormat.HEADER_SIZE,
          raw.length - WireFormat.HEADER_SIZE, null);
      String key = decoder.readString();
      if (!decoder.isEnd()) {
        throw new KeyProblem("record key is an Avro string followed by more bytes; the frame is damaged");
      }
      return key;
    } catch (IOException | RuntimeException e) {
      if (e instanceof KeyProblem p) {
        throw p;
      }
      throw new KeyProblem("record key is framed for schema id " + id + " but is not an Avro string");
    }
  }

  private static final class KeyProblem extends RuntimeException {
    KeyProblem(String message) {
      super(message, null, false, false);
    }
  }
}
