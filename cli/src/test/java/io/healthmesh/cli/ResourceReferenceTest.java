package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/resources.md holds, below its marker, exactly what {@link ResourceReference} writes from the
 * schemas. After changing a schema, write the page again with
 * {@code mvn -pl cli test -Dtest=ResourceReferenceTest -Dhealthmesh.docs.write=true}.
 */
class ResourceReferenceTest {
  static final Path PAGE = Path.of("../docs/resources.md");
  static final String MARKER = "<!-- Generated from the .avsc schemas by ResourceReference: edit the schemas, not this. -->\n";

  @Test
  void documentsEveryFieldOfEveryKind_asTheSchemasSay() throws Exception {
    String page = Files.readString(PAGE);
    int at = page.indexOf(MARKER);
    assertThat(at).as("the marker in " + PAGE).isNotNegative();
    String written = page.substring(0, at + MARKER.length()) + "\n" + ResourceReference.markdown();
    if (Boolean.getBoolean("healthmesh.docs.write")) {
      Files.writeString(PAGE, written);
      page = Files.readString(PAGE);
    }
    assertThat(page).as(PAGE + " differs from the schemas; write it again (see this test's doc)").isEqualTo(written);
  }
}
