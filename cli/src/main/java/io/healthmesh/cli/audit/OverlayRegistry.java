package io.healthmesh.cli.audit;

import io.healthmesh.schemas.SchemaRegistryClient;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/**
 * The live registry for reading, and a private layer for what a replay would register: a replay
 * decodes the recorded bytes with their real schema ids but never writes to the live registry.
 * Private ids start high so that they never collide with real ones.
 */
final class OverlayRegistry implements SchemaRegistryClient {
  private static final int FIRST_PRIVATE_ID = 1 << 30;
  private final SchemaRegistryClient live;
  private final Map<Integer, Schema> privateById = new ConcurrentHashMap<>();
  private final Map<String, Integer> privateIds = new ConcurrentHashMap<>();

  OverlayRegistry(SchemaRegistryClient live) {
    this.live = live;
  }

  @Override
  public synchronized int register(String subject, Schema schema) {
    Integer mine = privateIds.get(subject + "|" + schema);
    if (mine != null) {
      return mine;
    }
    try {
      return live.idOf(subject, schema);
    } catch (RuntimeException notThere) {
      int id = FIRST_PRIVATE_ID + privateById.size();
      privateById.put(id, schema);
      privateIds.put(subject + "|" + schema, id);
      return id;
    }
  }

  @Override
  public int idOf(String subject, Schema schema) {
    Integer mine = privateIds.get(subject + "|" + schema);
    return mine != null ? mine : live.idOf(subject, schema);
  }

  @Override
  public Schema byId(int id) {
    return id >= FIRST_PRIVATE_ID ? privateById.get(id) : live.byId(id);
  }

  @Override
  public SchemaVersion latest(String subject) {
    return live.latest(subject);
  }

  @Override
  public boolean isCompatible(String subject, Schema schema) {
    return true;
  }

  @Override
  public String compatibility(String subject) {
    return live.compatibility(subject);
  }

  @Override
  public void setCompatibility(String subject, String level) {
    throw new UnsupportedOperationException("a replay changes nothing in the live registry");
  }
}
