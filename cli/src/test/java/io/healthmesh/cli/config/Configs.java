package io.healthmesh.cli.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The demo's example configuration, and documents to check against it. */
final class Configs {
  private Configs() {}

  static List<Resource> demo() {
    try (InputStream in = Configs.class.getResourceAsStream("/io/healthmesh/cli/demo.yaml")) {
      Documents.Loaded loaded = Documents.read("demo.yaml", in);
      ResourceReader.Read read = ResourceReader.read(loaded.documents());
      assertThat(loaded.problems()).isEmpty();
      assertThat(read.problems()).isEmpty();
      return read.resources();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Catalog demoCatalog() {
    Catalog catalog = new Catalog();
    demo().forEach(catalog::put);
    return catalog;
  }

  /** Every problem of {@code yaml} (named test.yaml) applied over the demo configuration. */
  static List<String> problems(String yaml) {
    Documents.Loaded loaded = Documents.read("test.yaml", new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
    ResourceReader.Read read = ResourceReader.read(loaded.documents());
    List<String> problems = new ArrayList<>(loaded.problems());
    problems.addAll(read.problems());
    problems.addAll(Validator.check(demoCatalog(), read.resources()));
    return problems;
  }

  static List<Resource> resources(String yaml) {
    Documents.Loaded loaded = Documents.read("test.yaml", new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
    ResourceReader.Read read = ResourceReader.read(loaded.documents());
    assertThat(read.problems()).isEmpty();
    return read.resources();
  }
}
