package io.healthmesh.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class CompatibilityLevelTest {
  private static final Schema V1 = schema("{\"name\":\"id\",\"type\":\"string\"}");
  private static final Schema V2_DEFAULTED = schema(
      "{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"n\",\"type\":\"int\",\"default\":0}");
  private static final Schema V2_REQUIRED = schema(
      "{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"n\",\"type\":\"int\"}");
  private static final Schema V3_DROPS_ID = schema("{\"name\":\"n\",\"type\":\"int\",\"default\":0}");

  @Test
  void backwardAcceptsNewFieldWithDefault_whenOldDataIsRead() {
    assertThat(CompatibilityLevel.BACKWARD.problems(V2_DEFAULTED, List.of(V1))).isEmpty();
  }

  @Test
  void backwardRefusesNewFieldWithoutDefault_whenOldDataCannotFillIt() {
    assertThat(CompatibilityLevel.BACKWARD.problems(V2_REQUIRED, List.of(V1)))
        .singleElement().asString().contains("READER_FIELD_MISSING_DEFAULT_VALUE").contains("/fields/1");
  }

  @Test
  void forwardRefusesRemovingAFieldOldReadersNeed_whenItHasNoDefault() {
    assertThat(CompatibilityLevel.FORWARD.problems(V3_DROPS_ID, List.of(V2_DEFAULTED))).isNotEmpty();
    assertThat(CompatibilityLevel.BACKWARD.problems(V3_DROPS_ID, List.of(V2_DEFAULTED))).isEmpty();
  }

  @Test
  void transitiveChecksEveryEarlierVersion_whenOnlyTheLatestWouldPass() {
    // Readers of V1 need "id", which V3 drops; only a transitive level looks back that far.
    assertThat(CompatibilityLevel.FULL.problems(V3_DROPS_ID, List.of(V1, V3_DROPS_ID))).isEmpty();
    assertThat(CompatibilityLevel.FULL_TRANSITIVE.problems(V3_DROPS_ID, List.of(V1, V3_DROPS_ID))).isNotEmpty();
  }

  @Test
  void noneAcceptsAnything_whenChecksAreOff() {
    assertThat(CompatibilityLevel.NONE.problems(V2_REQUIRED, List.of(V1))).isEmpty();
  }

  @Test
  void parseRefusesUnknownLevel_with42203() {
    assertThat(CompatibilityLevel.parse("full_transitive")).isEqualTo(CompatibilityLevel.FULL_TRANSITIVE);
    assertThatThrownBy(() -> CompatibilityLevel.parse("SIDEWAYS"))
        .isInstanceOfSatisfying(RegistryError.class, e -> assertThat(e.errorCode).isEqualTo(42203));
  }

  private static Schema schema(String fields) {
    return new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[" + fields + "]}");
  }
}
