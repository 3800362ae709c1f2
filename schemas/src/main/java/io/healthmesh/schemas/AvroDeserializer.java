package io.healthmesh.schemas;

import io.healthmesh.schemas.AvroDeserializationException.Reason;
import java.io.EOFException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads Confluent-framed Avro into specific records. The writer schema comes from the registry
 * by the id in the header (cached, so one call per schema id ever); the reader schema is the
 * expected class's, or, without one, the generated class named like the writer schema.
 */
public class AvroDeserializer<T extends SpecificRecord> implements Deserializer<T> {
  private SchemaRegistryClient registry;
  private final Schema readerSchema;
  private final Map<Integer, DatumReader<T>> readers = new ConcurrentHashMap<>();

  /** For Kafka's reflective construction; reads into the class generated for the writer schema. */
  public AvroDeserializer() {
    this.readerSchema = null;
  }

  /** Reads into the class generated for each record's writer schema. */
  public AvroDeserializer(SchemaRegistryClient registry) {
    this.registry = registry;
    this.readerSchema = null;
  }

  public AvroDeserializer(SchemaRegistryClient registry, Class<T> type) {
    this.registry = registry;
    this.readerSchema = SpecificData.get().getSchema(type);
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    if (registry == null) {
      registry = RestSchemaRegistryClient.of(RegistryConfig.url(configs), configs);
    }
  }

  @Override
  public T deserialize(String topic, byte[] data) {
    if (data == null) {
      return null;
    }
    int id = WireFormat.schemaId(topic, data);
    DatumReader<T> reader = reader(topic, id);
    BinaryDecoder decoder = DecoderFactory.get()
        .binaryDecoder(data, WireFormat.HEADER_SIZE, data.length - WireFormat.HEADER_SIZE, null);
    T value;
    try {
      value = reader.read(null, decoder);
    } catch (EOFException e) {
      throw new AvroDeserializationException(Reason.TRUNCATED, topic,
          "body ended before the record was complete (schema id " + id + ")", e);
    } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException
        | ClassCastException | UnsupportedOperationException e) {
      // UnsupportedOperationException: Avro's limit on string and bytes lengths, met by a damaged length
      throw new AvroDeserializationException(Reason.MALFORMED, topic,
          "body is not valid for schema id " + id + ": " + e, e);
    }
    if (!isEnd(decoder)) {
      throw new AvroDeserializationException(Reason.TRUNCATED, topic,
          "bytes left over after the record of schema id " + id + "; the frame is damaged", null);
    }
    return value;
  }

  /** Like {@link #deserialize(String, byte[])}, naming the partition and offset on failure. */
  public T deserialize(ConsumerRecord<?, byte[]> record) {
    try {
      return deserialize(record.topic(), record.value());
    } catch (AvroDeserializationException e) {
      throw e.at(record.partition(), record.offset());
    }
  }

  private static boolean isEnd(BinaryDecoder decoder) {
    try {
      return decoder.isEnd();
    } catch (IOException e) {
      return false;
    }
  }

  private DatumReader<T> reader(String topic, int id) {
    DatumReader<T> reader = readers.get(id);
    if (reader != null) {
      return reader;
    }
    Schema writer = writerSchema(topic, id);
    Schema reading = readerSchema != null ? readerSchema : generatedSchema(topic, writer);
    SchemaCompatibility.SchemaPairCompatibility check =
        SchemaCompatibility.checkReaderWriterCompatibility(reading, writer);
    if (check.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
      throw new AvroDeserializationException(Reason.INCOMPATIBLE_SCHEMA, topic, "schema id " + id + " ("
          + writer.getFullName() + ") cannot be read as " + reading.getFullName() + ": "
          + check.getDescription(), null);
    }
    SpecificData model = SpecificData.getForSchema(reading);
    reader = new SpecificDatumReader<>(writer, reading, model);
    readers.putIfAbsent(id, reader);
    return reader;
  }

  private Schema writerSchema(String topic, int id) {
    try {
      return registry.byId(id);
    } catch (RegistryException e) {
      Reason reason = e.errorCode() == RegistryException.SCHEMA_NOT_FOUND
          ? Reason.UNKNOWN_SCHEMA_ID
          : Reason.REGISTRY_UNAVAILABLE;
      throw new AvroDeserializationException(reason, topic, "schema id " + id + ": " + e.getMessage(), e);
    }
  }

  private static Schema generatedSchema(String topic, Schema writer) {
    Class<?> type = SpecificData.get().getClass(writer);
    if (type == null || !SpecificRecord.class.isAssignableFrom(type)) {
      throw new AvroDeserializationException(Reason.INCOMPATIBLE_SCHEMA, topic,
          "no generated class for writer schema " + writer.getFullName(), null);
    }
    return SpecificData.get().getSchema(type);
  }
}
