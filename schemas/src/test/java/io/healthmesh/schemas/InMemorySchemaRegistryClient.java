package io.healthmesh.schemas;

import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * A registry held in memory, for tests where no registry runs (the topology's, with
 * {@code TopologyTestDriver}). Ids are given in registration order, one per distinct schema. Other
 * modules' tests get it from this module's test jar.
 */
public final class InMemorySchemaRegistryClient implements SchemaRegistryClient {
  private final Map<Integer, Schema> byId = new HashMap<>();
  private final Map<String, Map<Schema, Integer>> bySubject = new HashMap<>();
  private int calls;

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

  /** Requests answered so far; lets tests prove that the serdes cache. */
  public synchronized int calls() {
    return calls;
  }

  @Override
  public synchronized SchemaVersion latest(String subject) {
    calls++;
    Map<Schema, Integer> versions = bySubject.get(subject);
    if (versions == null || versions.isEmpty()) {
      throw new RegistryException(404, RegistryException.SUBJECT_NOT_FOUND, "Subject " + subject + " not found");
    }
    int id = versions.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    return new SchemaVersion(subject, versions.size(), id, byId.get(id));
  }

  /** No compatibility rules in memory: every schema is accepted. */
  @Override
  public boolean isCompatible(String subject, Schema schema) {
    return true;
  }

  @Override
  public String compatibility(String subject) {
    return "NONE";
  }

  @Override
  public void setCompatibility(String subject, String level) {
    if (!"NONE".equals(level)) {
      throw new UnsupportedOperationException("the in-memory registry checks no compatibility");
    }
  }
}
