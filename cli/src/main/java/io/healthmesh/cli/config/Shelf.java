package io.healthmesh.cli.config;

import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.WireFormat;
import java.io.IOException;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Where a read of the config topics puts each resource's version in force, in the form its reader
 * keeps: the decoded record ({@link Records}, a {@link Catalog}), or a table's line ({@link
 * Summaries}). The read decides which version is in force; the shelf only keeps it.
 *
 * @param <V> what is kept of a resource
 */
interface Shelf<V> {

  /** A config record's value as kept; called on the reading threads, side by side. */
  V read(ResourceKind kind, String topic, byte[] value) throws SerializationException;

  /** A decoded record as kept (an edge's in-force version). */
  V kept(ResourceKind kind, SpecificRecord value);

  /**
   * The version in force; null removes the resource.
   *
   * @return whether it replaced a version kept before
   */
  boolean put(ResourceKind kind, String key, V value);

  /** The latest record of this resource could not be taken; what is kept is the version before. */
  void damaged(ResourceKind kind, String key);

  /** Each kind's records decoded by Avro's reader, side by side; a failure is a {@link SerializationException}. */
  final class Decoders {
    private final SchemaRegistryClient registry;
    /** Made for the kinds read only: making one loads its classes and schema. */
    private final Map<ResourceKind, Deserializer<SpecificRecord>> values = new ConcurrentHashMap<>();

    Decoders(SchemaRegistryClient registry) {
      this.registry = registry;
    }

    SpecificRecord read(ResourceKind kind, String topic, byte[] value) {
      return values.computeIfAbsent(kind, k -> k.topic().valueSerde(registry).deserializer()).deserialize(topic, value);
    }
  }

  /** Decoded records, in a {@link Catalog}. */
  final class Records implements Shelf<SpecificRecord> {
    private final Catalog catalog;
    private final Decoders decoders;

    Records(Catalog catalog, SchemaRegistryClient registry) {
      this.catalog = catalog;
      this.decoders = new Decoders(registry);
    }

    @Override
    public SpecificRecord read(ResourceKind kind, String topic, byte[] value) {
      return decoders.read(kind, topic, value);
    }

    @Override
    public SpecificRecord kept(ResourceKind kind, SpecificRecord value) {
      return value;
    }

    @Override
    public boolean put(ResourceKind kind, String key, SpecificRecord value) {
      return catalog.put(new Resource(kind, key, value, null));
    }

    @Override
    public void damaged(ResourceKind kind, String key) {
      catalog.damaged(kind, key);
    }
  }

  /**
   * Each resource's {@link AvroJson#summary}, made from its record's bytes as they are read (no
   * record is kept): a table of 100,000 record sets keeps 100,000 short lines.
   */
  final class Summaries implements Shelf<String> {
    private final Decoders decoders;
    private final SchemaRegistryClient registry;
    private final int width;
    private final Map<ResourceKind, SortedMap<String, String>> lines = new EnumMap<>(ResourceKind.class);
    /** By kind and schema id: the writer of summaries straight from the bytes, or {@link #DECODE}. */
    private final Map<ResourceKind, Map<Integer, Object>> direct = new EnumMap<>(ResourceKind.class);
    private static final Object DECODE = new Object();

    Summaries(SchemaRegistryClient registry, int width) {
      this.decoders = new Decoders(registry);
      this.registry = registry;
      this.width = width;
      for (ResourceKind kind : ResourceKind.values()) {
        lines.put(kind, new TreeMap<>());
        direct.put(kind, new ConcurrentHashMap<>());
      }
    }

    /**
     * The first record of each schema id is decoded by Avro's reader, which fetches the writer's
     * schema (or says why it cannot); the records after it of a schema the direct writer reads
     * are summarised from their bytes. A body the direct writer finds damaged is decoded too, so
     * that Avro's reader says what is wrong with it.
     */
    @Override
    public String read(ResourceKind kind, String topic, byte[] value) {
      int id;
      try {
        id = WireFormat.schemaId(topic, value);
      } catch (SerializationException notFramed) {
        return kept(kind, decoders.read(kind, topic, value)); // the reader says what is wrong with it
      }
      Map<Integer, Object> byId = direct.get(kind);
      Object known = byId.get(id);
      if (known instanceof AvroSummary summary) {
        try {
          return summary.summary(value, WireFormat.HEADER_SIZE, value.length - WireFormat.HEADER_SIZE);
        } catch (IOException | RuntimeException damaged) {
          return kept(kind, decoders.read(kind, topic, value));
        }
      }
      String line = kept(kind, decoders.read(kind, topic, value));
      if (known == null) {
        // the schema is the registry client's now, fetched for the reader above
        Schema reader = kind.schema();
        AvroSummary summary = registry.byId(id).equals(reader) ? AvroSummary.of(reader, kind.identity(), width) : null;
        byId.putIfAbsent(id, summary == null ? DECODE : summary);
      }
      return line;
    }

    @Override
    public String kept(ResourceKind kind, SpecificRecord value) {
      return AvroJson.summary(value, kind.identity(), width);
    }

    @Override
    public boolean put(ResourceKind kind, String key, String value) {
      SortedMap<String, String> byKey = lines.get(kind);
      return (value == null ? byKey.remove(key) : byKey.put(key, value)) != null;
    }

    @Override
    public void damaged(ResourceKind kind, String key) {
      // a table shows the version kept, as get does from a catalog
    }

    /** Whether records of this kind and schema id are summarised from their bytes (known after the first). */
    boolean fromBytes(ResourceKind kind, int schemaId) {
      return direct.get(kind).get(schemaId) instanceof AvroSummary;
    }

    Map<ResourceKind, SortedMap<String, String>> lines() {
      Map<ResourceKind, SortedMap<String, String>> view = new EnumMap<>(ResourceKind.class);
      lines.forEach((kind, byKey) -> view.put(kind, Collections.unmodifiableSortedMap(byKey)));
      return view;
    }
  }
}
