package io.healthmesh.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;

/** The registry's operations on top of the store and the log; HTTP-free so it reads as rules. */
final class RegistryService {
  private final SchemaStore store;
  private final SchemaLog log;

  RegistryService(SchemaStore store, SchemaLog log) {
    this.store = store;
    this.log = log;
  }

  /** Registers {@code schemaText} under {@code subject}; returns its id (the existing one if known). */
  int register(String subject, String schemaText) {
    Schema schema = Schemas.parse(schemaText);
    String canonical = schema.toString();
    return log.write(() -> {
      var existing = store.find(subject, canonical);
      if (existing.isPresent()) {
        return new SchemaLog.Decision.Outcome<>(existing.get().id(), List.of());
      }
      List<String> problems = store.effectiveLevel(subject).problems(schema, parsedVersions(subject));
      if (!problems.isEmpty()) {
        throw RegistryError.incompatible(subject + "; " + String.join("; ", problems));
      }
      int id = store.id(canonical).orElseGet(store::nextId);
      int version = store.latest(subject).map(v -> v.version() + 1).orElse(1);
      SchemaStore.Version v = new SchemaStore.Version(subject, version, id, canonical);
      return new SchemaLog.Decision.Outcome<>(id, List.of(SchemaLog.schemaRecord(v)));
    });
  }

  SchemaStore.Version lookup(String subject, String schemaText) {
    String canonical = Schemas.canonical(schemaText);
    if (store.latest(subject).isEmpty()) {
      throw RegistryError.subjectNotFound(subject);
    }
    return store.find(subject, canonical).orElseThrow(() -> RegistryError.schemaNotFound("under subject " + subject));
  }

  String schemaById(int id) {
    return store.schema(id).orElseGet(() -> {
      // Maybe just registered through another instance: read the log to its end once.
      log.catchUp();
      return store.schema(id).orElseThrow(() -> RegistryError.schemaNotFound("id " + id));
    });
  }

  List<Map<String, Object>> subjectVersionsOf(int id) {
    schemaById(id);
    List<Map<String, Object>> uses = new ArrayList<>();
    store.usesOf(id).forEach(v -> uses.add(Map.of("subject", v.subject(), "version", v.version())));
    return uses;
  }

  List<String> subjects() {
    return store.subjects();
  }

  List<Integer> versions(String subject) {
    List<SchemaStore.Version> versions = store.versions(subject);
    if (versions.isEmpty()) {
      throw RegistryError.subjectNotFound(subject);
    }
    return versions.stream().map(SchemaStore.Version::version).toList();
  }

  SchemaStore.Version version(String subject, String version) {
    if (store.latest(subject).isEmpty()) {
      throw RegistryError.subjectNotFound(subject);
    }
    if (isLatest(version)) {
      return store.latest(subject).orElseThrow();
    }
    return store.version(subject, parseVersion(version))
        .orElseThrow(() -> RegistryError.versionNotFound(subject, version));
  }

  /** Messages explaining why {@code schemaText} may not follow {@code version}; empty when it may. */
  List<String> compatibilityProblems(String subject, String version, String schemaText) {
    Schema schema = Schemas.parse(schemaText);
    if (store.latest(subject).isEmpty() && isLatest(version)) {
      return List.of();
    }
    CompatibilityLevel level = store.effectiveLevel(subject);
    SchemaStore.Version against = version(subject, version);
    List<Schema> previous = isLatest(version) ? parsedVersions(subject) : List.of(Schemas.parse(against.schema()));
    return level.problems(schema, previous);
  }

  String globalLevel() {
    return store.globalLevel().name();
  }

  String subjectLevel(String subject, boolean defaultToGlobal) {
    return store.subjectLevel(subject).map(Enum::name).orElseGet(() -> {
      if (defaultToGlobal) {
        return globalLevel();
      }
      throw RegistryError.subjectConfigNotFound(subject);
    });
  }

  /** {@code subject} null sets the global level. */
  String setLevel(String subject, String levelText) {
    CompatibilityLevel level = CompatibilityLevel.parse(levelText);
    return log.write(() -> new SchemaLog.Decision.Outcome<>(level.name(),
        List.of(SchemaLog.configRecord(subject, level))));
  }

  String deleteSubjectLevel(String subject) {
    String previous = subjectLevel(subject, false);
    log.write(() -> new SchemaLog.Decision.Outcome<>(previous, List.of(SchemaLog.configRecord(subject, null))));
    return previous;
  }

  private List<Schema> parsedVersions(String subject) {
    return store.versions(subject).stream().map(v -> Schemas.parse(v.schema())).toList();
  }

  private static boolean isLatest(String version) {
    return "latest".equals(version) || "-1".equals(version);
  }

  private static int parseVersion(String version) {
    try {
      int v = Integer.parseInt(version);
      if (v < 1) {
        throw RegistryError.invalidVersion(version);
      }
      return v;
    } catch (NumberFormatException e) {
      throw RegistryError.invalidVersion(version);
    }
  }
}
