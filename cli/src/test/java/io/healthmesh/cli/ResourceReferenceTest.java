package io.healthmesh.cli;

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
    GeneratedPage.check(PAGE, MARKER, ResourceReference.markdown(),
        "mvn -pl cli test -Dtest=ResourceReferenceTest -Dhealthmesh.docs.write=true");
  }
}
