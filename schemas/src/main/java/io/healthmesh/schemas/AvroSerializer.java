package io.healthmesh.schemas;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes Avro specific records in the Confluent wire format, registering (or, with
 * {@code auto.register.schemas=false}, looking up) the record's schema under the topic's subject.
 * After the first record of a schema, serializing makes no network call.
 */
public class AvroSerializer<T extends SpecificRecord> implements Serializer<T> {
  private SchemaRegistryClient registry;
  private boolean isKey;
  private boolean autoRegister = true;
  private final Map<String, Map<Schema, Integer>> ids = new ConcurrentHashMap<>();
  private final Map<Schema, DatumWriter<T>> writers = new ConcurrentHashMap<>();
  /**
   * The last topic and schema seen, resolved: a serializer nearly always writes one record type
   * to one topic, and the map lookups hash the whole schema.
   */
  private volatile Resolved<T> last;

  private record Resolved<T>(String topic, Schema schema, int id, DatumWriter<T> writer) {}

  /** For Kafka's reflective construction; {@link #configure} must follow. */
  public AvroSerializer() {}

  public AvroSerializer(SchemaRegistryClient registry, boolean isKey) {
    this.registry = registry;
    this.isKey = isKey;
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    this.isKey = isKey;
    this.autoRegister = RegistryConfig.autoRegister(configs);
    if (registry == null) {
      registry = RestSchemaRegistryClient.of(RegistryConfig.url(configs), configs);
    }
  }

  @Override
  public byte[] serialize(String topic, T data) {
    if (data == null) {
      return null;
    }
    Schema schema = data.getSchema();
    Resolved<T> last = this.last;
    if (last == null || last.schema != schema || !last.topic.equals(topic)) {
      last = new Resolved<>(topic, schema, schemaId(topic, schema), writer(schema));
      this.last = last;
    }
    int id = last.id;
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream(128);
      out.write(new byte[WireFormat.HEADER_SIZE]);
      BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
      last.writer.write(data, encoder);
      encoder.flush();
      byte[] bytes = out.toByteArray();
      WireFormat.writeHeader(bytes, id);
      return bytes;
    } catch (IOException | RuntimeException e) {
      throw new SerializationException("cannot serialize " + schema.getFullName() + " for topic "
          + topic + ": " + e.getMessage(), e);
    }
  }

  private int schemaId(String topic, Schema schema) {
    String subject = RegistryConfig.subject(topic, isKey);
    Map<Schema, Integer> bySchema = ids.computeIfAbsent(subject, s -> new ConcurrentHashMap<>());
    Integer id = bySchema.get(schema);
    if (id != null) {
      return id;
    }
    try {
      id = autoRegister ? registry.register(subject, schema) : registry.idOf(subject, schema);
    } catch (RegistryException e) {
      throw new SerializationException("cannot " + (autoRegister ? "register" : "find") + " schema "
          + schema.getFullName() + " under subject " + subject + ": " + e.getMessage(), e);
    }
    bySchema.put(schema, id);
    return id;
  }

  private DatumWriter<T> writer(Schema schema) {
    return writers.computeIfAbsent(schema,
        s -> new SpecificDatumWriter<>(s, SpecificData.getForSchema(s)));
  }
}
