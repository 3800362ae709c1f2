package io.healthmesh.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The registry's state, rebuilt from the {@code _schemas} log: subjects with their versions,
 * schemas by id, compatibility settings. The log order decides: the first record that claims a
 * subject version, an id or a schema wins and later conflicting ones are ignored, so every
 * instance that reads the same log agrees.
 */
final class SchemaStore {
  /** One version of a subject. {@code schema} is the canonical text of the parsed schema. */
  record Version(String subject, int version, int id, String schema) {}

  private final Map<String, TreeMap<Integer, Version>> subjects = new TreeMap<>();
  private final Map<Integer, String> schemasById = new HashMap<>();
  private final Map<String, Integer> idsBySchema = new HashMap<>();
  private final Map<String, CompatibilityLevel> subjectLevels = new HashMap<>();
  private final CompatibilityLevel defaultLevel;
  private CompatibilityLevel globalLevel;

  SchemaStore(CompatibilityLevel defaultLevel) {
    this.defaultLevel = defaultLevel;
  }

  synchronized boolean applySchema(Version v) {
    TreeMap<Integer, Version> versions = subjects.get(v.subject());
    if (versions != null && versions.containsKey(v.version())) {
      return false;
    }
    String claimed = schemasById.get(v.id());
    if (claimed != null && !claimed.equals(v.schema())) {
      return false;
    }
    Integer known = idsBySchema.get(v.schema());
    if (known != null && known != v.id()) {
      return false;
    }
    schemasById.put(v.id(), v.schema());
    idsBySchema.put(v.schema(), v.id());
    subjects.computeIfAbsent(v.subject(), s -> new TreeMap<>()).put(v.version(), v);
    return true;
  }

  /** {@code level} null clears the setting. {@code subject} null is the global setting. */
  synchronized void applyConfig(String subject, CompatibilityLevel level) {
    if (subject == null) {
      globalLevel = level;
    } else if (level == null) {
      subjectLevels.remove(subject);
    } else {
      subjectLevels.put(subject, level);
    }
  }

  synchronized List<String> subjects() {
    return subjects.entrySet().stream().filter(e -> !e.getValue().isEmpty()).map(Map.Entry::getKey).toList();
  }

  synchronized List<Version> versions(String subject) {
    TreeMap<Integer, Version> versions = subjects.get(subject);
    return versions == null ? List.of() : new ArrayList<>(versions.values());
  }

  synchronized Optional<Version> version(String subject, int version) {
    TreeMap<Integer, Version> versions = subjects.get(subject);
    return Optional.ofNullable(versions == null ? null : versions.get(version));
  }

  synchronized Optional<Version> latest(String subject) {
    TreeMap<Integer, Version> versions = subjects.get(subject);
    return Optional.ofNullable(versions == null || versions.isEmpty() ? null : versions.lastEntry().getValue());
  }

  synchronized Optional<Version> find(String subject, String schema) {
    return versions(subject).stream().filter(v -> v.schema().equals(schema)).findFirst();
  }

  synchronized Optional<String> schema(int id) {
    return Optional.ofNullable(schemasById.get(id));
  }

  synchronized Optional<Integer> id(String schema) {
    return Optional.ofNullable(idsBySchema.get(schema));
  }

  synchronized List<Version> usesOf(int id) {
    List<Version> uses = new ArrayList<>();
    subjects.values().forEach(vs -> vs.values().stream().filter(v -> v.id() == id).forEach(uses::add));
    return uses;
  }

  synchronized int nextId() {
    return schemasById.keySet().stream().mapToInt(Integer::intValue).max().orElse(0) + 1;
  }

  synchronized CompatibilityLevel globalLevel() {
    return globalLevel != null ? globalLevel : defaultLevel;
  }

  synchronized Optional<CompatibilityLevel> subjectLevel(String subject) {
    return Optional.ofNullable(subjectLevels.get(subject));
  }

  synchronized CompatibilityLevel effectiveLevel(String subject) {
    return subjectLevel(subject).orElse(globalLevel());
  }
}
