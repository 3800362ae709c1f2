package io.healthmesh.schemas;

import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;

/** A registry held in memory, for unit tests of the serdes; the integration tests use the real one. */
final class InMemoryRegistryClient implements SchemaRegistryClient {
  private final Map<Integer, Schema> byId = new HashMap<>();
  private final Map<String, Map<Schema, Integer>> bySubject = new HashMap<>();
  int calls;

  @Override
  public synchronized int register(String subject, Schema schema) {
    calls++;
    int id = byId.entrySet().stream().filter(e -> e.getValue().equals(schema)).map(Map.Entry::getKey)
        .findFirst().orElse(byId.size() + 1);
    byId.put(id, schema);
    bySubject.computeIfAbsent(subject, s -> new HashMap<>()).put(schema, id);
    return id;
  }

  @Override
  public synchronized int idOf(String subject, Schema schema) {
    calls++;
    Integer id = bySubject.getOrDefault(subject, Map.of()).get(schema);
    if (id == null) {
      throw new RegistryException(404, RegistryException.SCHEMA_NOT_FOUND, "Schema not found");
    }
    return id;
  }

  @Override
  public synchronized Schema byId(int id) {
    calls++;
    Schema schema = byId.get(id);
    if (schema == null) {
      throw new RegistryException(404, RegistryException.SCHEMA_NOT_FOUND, "Schema " + id + " not found");
    }
    return schema;
  }

  @Override
  public SchemaVersion latest(String subject) {
    throw new IllegalStateException("not used by the serdes");
  }

  @Override
  public boolean isCompatible(String subject, Schema schema) {
    throw new IllegalStateException("not used by the serdes");
  }

  @Override
  public String compatibility(String subject) {
    throw new IllegalStateException("not used by the serdes");
  }

  @Override
  public void setCompatibility(String subject, String level) {
    throw new IllegalStateException("not used by the serdes");
  }
}
