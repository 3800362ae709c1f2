package io.healthmesh.cli.audit;

import io.healthmesh.cli.config.ResourceKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * Every retained version of every configuration resource, with the offset and time it was written.
 * Config topics are compacted: a version overwritten long ago may be gone, which
 * {@link Version#oldestRetained} tells.
 */
public final class ConfigHistory {
  private final Map<ResourceKind, Map<String, List<Version>>> versions = new EnumMap<>(ResourceKind.class);

  /**
   * @param value null for a deletion
   * @param oldestRetained whether no earlier version of the key is left in the topic
   */
  public record Version(String topic, int partition, long offset, Instant time, SpecificRecord value,
      boolean oldestRetained) {
    public String where() {
      return topic + "-" + partition + "@" + offset;
    }
  }

  public void add(ResourceKind kind, String key, String topic, int partition, long offset, Instant time,
      SpecificRecord value) {
    List<Version> list = versions.computeIfAbsent(kind, k -> new HashMap<>()).computeIfAbsent(key, k -> new ArrayList<>());
    list.add(new Version(topic, partition, offset, time, value, list.isEmpty()));
  }

  /** The version in force at {@code at}, or null when none was (or none is retained). */
  public Version at(ResourceKind kind, String key, Instant at) {
    Version found = null;
    for (Version v : versions.getOrDefault(kind, Map.of()).getOrDefault(key, List.of())) {
      if (v.time().isAfter(at)) {
        break;
      }
      found = v;
    }
    return found == null || found.value() == null ? null : found;
  }

  /** Every resource of a kind in force at {@code at}. */
  public Map<String, SpecificRecord> all(ResourceKind kind, Instant at) {
    Map<String, SpecificRecord> all = new HashMap<>();
    versions.getOrDefault(kind, Map.of()).keySet().forEach(key -> {
      Version v = at(kind, key, at);
      if (v != null) {
        all.put(key, v.value());
      }
    });
    return all;
  }
}
