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
      ResourceReader.Read read = ResourceReader.read("demo.yaml", in);
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
    ResourceReader.Read read = ResourceReader.read("test.yaml", new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
    List<String> problems = new ArrayList<>(read.problems());
    problems.addAll(Validator.check(demoCatalog(), read.resources()));
    return problems;
  }

  static List<Resource> resources(String yaml) {
    ResourceReader.Read read = ResourceReader.read("test.yaml", new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
    assertThat(read.problems()).isEmpty();
    return read.resources();
  }
}
