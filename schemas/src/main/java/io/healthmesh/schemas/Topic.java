package io.healthmesh.schemas;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * One topic of the project bound to its key and value types, so that every producer and consumer
 * of it builds the same serdes.
 *
 * @param name the topic name
 * @param keyType {@code String.class} or an Avro specific record class
 * @param valueType an Avro specific record class
 * @param compacted whether the topic keeps only the latest value per key
 */
public record Topic<K, V extends SpecificRecord>(
    String name, Class<K> keyType, Class<V> valueType, boolean compacted) {

  public Serde<K> keySerde(SchemaRegistryClient registry) {
    return serde(registry, keyType, true);
  }

  public Serde<V> valueSerde(SchemaRegistryClient registry) {
    return new AvroSerde<>(registry, valueType, false);
  }

  public String keySubject() {
    return RegistryConfig.subject(name, true);
  }

  public String valueSubject() {
    return RegistryConfig.subject(name, false);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static <X> Serde<X> serde(SchemaRegistryClient registry, Class<X> type, boolean isKey) {
    if (type == String.class) {
      return (Serde<X>) Serdes.String();
    }
    if (SpecificRecord.class.isAssignableFrom(type)) {
      return (Serde<X>) new AvroSerde(registry, type, isKey);
    }
    throw new IllegalArgumentException("no serde for " + type);
  }
}
