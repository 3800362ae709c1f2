package io.healthmesh.cli.config;

import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;

/** The whole configuration: every resource by kind and key, in key order. */
public final class Catalog {
  private final Map<ResourceKind, TreeMap<String, SpecificRecord>> byKind = new EnumMap<>(ResourceKind.class);
  /** Resources whose latest record could not be read. */
  private final Set<Resource.Ref> damaged = new HashSet<>();

  public Catalog() {
    for (ResourceKind kind : ResourceKind.values()) {
      byKind.put(kind, new TreeMap<>());
    }
  }

  public Catalog copy() {
    Catalog copy = new Catalog();
    byKind.forEach((kind, resources) -> copy.byKind.get(kind).putAll(resources));
    copy.damaged.addAll(damaged);
    return copy;
  }

  /**
   * Applies a change: a resource with a null value removes the key.
   *
   * @return whether it replaced (or removed) a version held before
   */
  public boolean put(Resource resource) {
    damaged.remove(resource.ref());
    TreeMap<String, SpecificRecord> byKey = byKind.get(resource.kind());
    return (resource.value() == null ? byKey.remove(resource.key()) : byKey.put(resource.key(), resource.value()))
        != null;
  }

  /** The latest record of this resource could not be read; what is kept is the version before. */
  public void damaged(ResourceKind kind, String key) {
    damaged.add(new Resource.Ref(kind, key));
  }

  public boolean isDamaged(ResourceKind kind, String key) {
    return damaged.contains(new Resource.Ref(kind, key));
  }

  @SuppressWarnings("unchecked")
  public <T extends SpecificRecord> T get(ResourceKind kind, String key) {
    return (T) byKind.get(kind).get(key);
  }

  public Map<String, SpecificRecord> all(ResourceKind kind) {
    return Collections.unmodifiableMap(byKind.get(kind));
  }

  @SuppressWarnings("unchecked")
  public <T extends SpecificRecord> Collection<T> values(ResourceKind kind) {
    return (Collection<T>) byKind.get(kind).values();
  }

  public int size() {
    return byKind.values().stream().mapToInt(Map::size).sum();
  }
}
