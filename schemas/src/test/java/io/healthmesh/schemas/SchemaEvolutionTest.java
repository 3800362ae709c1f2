package io.healthmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.junit.jupiter.api.Test;

/**
 * The build-time schema check: a schema may only change in ways that let it read everything
 * written with a released version (BACKWARD), and every type keeps its doc.
 */
class SchemaEvolutionTest {
  private static final Path CURRENT = Path.of("src/main/avro");
  private static final Path RELEASED = Path.of("src/released");

  @Test
  void currentSchemasReadEveryReleasedVersion_whenBuilt() throws IOException {
    Map<String, Schema> current = SchemaFiles.parseTree(CURRENT);
    List<Path> releases = releases();
    assertThat(releases).as("at least one released version under " + RELEASED).isNotEmpty();
    for (Path release : releases) {
      assertThat(problems(current, SchemaFiles.parseTree(release))).as("against " + release).isEmpty();
    }
  }

  @Test
  void checkFails_whenAFieldWithoutDefaultIsAddedOrATypeRemoved() {
    Map<String, Schema> released = SchemaFiles.parseTree(Path.of("src/test/resources/evolution/released"));
    Map<String, Schema> changed = SchemaFiles.parseTree(Path.of("src/test/resources/evolution/changed"));

    assertThat(problems(changed, released))
        .anySatisfy(p -> assertThat(p).contains("test.Probe").contains("READER_FIELD_MISSING_DEFAULT_VALUE"))
        .anySatisfy(p -> assertThat(p).contains("test.Gone").contains("removed"));
  }

  @Test
  void everyFieldAndTypeIsDocumented_whenSchemasAreRead() {
    List<String> undocumented = new ArrayList<>();
    SchemaFiles.parseTree(CURRENT).values().forEach(s -> collectUndocumented(s, undocumented, new ArrayList<>()));
    assertThat(undocumented).isEmpty();
  }

  @Test
  void everyTopicValueIsAGeneratedClassFromTheTree() {
    Map<String, Schema> current = SchemaFiles.parseTree(CURRENT);
    for (Topic<?, ?> topic : Topics.all()) {
      assertThat(current).containsKey(topic.valueType().getName());
    }
  }

  static List<String> problems(Map<String, Schema> current, Map<String, Schema> released) {
    List<String> problems = new ArrayList<>();
    released.forEach((name, old) -> {
      Schema now = current.get(name);
      if (now == null) {
        problems.add(name + " was removed; data written with it could no longer be read");
        return;
      }
      var result = SchemaCompatibility.checkReaderWriterCompatibility(now, old);
      if (result.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
        result.getResult().getIncompatibilities().forEach(i -> problems.add(name + ": " + i.getType()
            + " at " + i.getLocation() + " " + i.getMessage()));
      }
    });
    return problems;
  }

  private static void collectUndocumented(Schema schema, List<String> out, List<String> seen) {
    if (schema.getType() == Schema.Type.UNION) {
      schema.getTypes().forEach(t -> collectUndocumented(t, out, seen));
      return;
    }
    if (schema.getType() == Schema.Type.ARRAY) {
      collectUndocumented(schema.getElementType(), out, seen);
      return;
    }
    if (schema.getType() != Schema.Type.RECORD && schema.getType() != Schema.Type.ENUM) {
      return;
    }
    if (seen.contains(schema.getFullName())) {
      return;
    }
    seen.add(schema.getFullName());
    if (schema.getDoc() == null || schema.getDoc().isBlank()) {
      out.add(schema.getFullName());
    }
    if (schema.getType() == Schema.Type.RECORD) {
      for (Schema.Field field : schema.getFields()) {
        if (field.doc() == null || field.doc().isBlank()) {
          out.add(schema.getFullName() + "." + field.name());
        }
        collectUndocumented(field.schema(), out, seen);
      }
    }
  }

  private static List<Path> releases() throws IOException {
    try (Stream<Path> dirs = Files.list(RELEASED)) {
      return dirs.filter(Files::isDirectory).sorted().toList();
    }
  }
}
