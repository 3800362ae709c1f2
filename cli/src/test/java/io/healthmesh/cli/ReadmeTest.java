package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.cli.config.ResourceKind;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** The README's resource reference stays in step with the schemas. */
class ReadmeTest {

  @Test
  void documentsEveryFieldOfEveryKind() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    for (ResourceKind kind : ResourceKind.values()) {
      assertThat(readme).contains("**" + kind.kindName() + "** (kind)");
      check(readme, kind.schema());
    }
  }

  private static void check(String readme, Schema schema) {
    switch (schema.getType()) {
      case RECORD -> {
        assertThat(readme).as(schema.getName()).contains("**" + schema.getName() + "**");
        for (Schema.Field f : schema.getFields()) {
          assertThat(readme).as(schema.getName() + "." + f.name()).contains("| `" + f.name() + "` |");
          check(readme, f.schema());
        }
      }
      case UNION -> schema.getTypes().forEach(t -> check(readme, t));
      case ARRAY -> check(readme, schema.getElementType());
      default -> { }
    }
  }
}
