package io.healthmesh.schemas;

import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** Serde for one Avro specific record type in the Confluent wire format. */
public final class AvroSerde<T extends SpecificRecord> implements Serde<T> {
  private final AvroSerializer<T> serializer;
  private final AvroDeserializer<T> deserializer;

  public AvroSerde(SchemaRegistryClient registry, Class<T> type, boolean isKey) {
    this.serializer = new AvroSerializer<>(registry, isKey);
    this.deserializer = new AvroDeserializer<>(registry, type);
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    serializer.configure(configs, isKey);
    deserializer.configure(configs, isKey);
  }

  @Override
  public Serializer<T> serializer() {
    return serializer;
  }

  @Override
  public AvroDeserializer<T> deserializer() {
    return deserializer;
  }
}
