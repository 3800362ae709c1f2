package io.healthmesh.registry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SchemaStoreTest {
  private final SchemaStore store = new SchemaStore(CompatibilityLevel.BACKWARD);

  @Test
  void firstRecordWins_whenTwoClaimTheSameId() {
    assertThat(store.applySchema(new SchemaStore.Version("a-value", 1, 1, "\"string\""))).isTrue();
    assertThat(store.applySchema(new SchemaStore.Version("b-value", 1, 1, "\"int\""))).isFalse();

    assertThat(store.schema(1)).contains("\"string\"");
    assertThat(store.subjects()).containsExactly("a-value");
  }

  @Test
  void firstRecordWins_whenOneSchemaIsGivenTwoIds() {
    store.applySchema(new SchemaStore.Version("a-value", 1, 1, "\"string\""));
    assertThat(store.applySchema(new SchemaStore.Version("b-value", 1, 2, "\"string\""))).isFalse();
    assertThat(store.applySchema(new SchemaStore.Version("b-value", 1, 1, "\"string\""))).isTrue();

    assertThat(store.id("\"string\"")).contains(1);
    assertThat(store.nextId()).isEqualTo(2);
  }

  @Test
  void firstRecordWins_whenTwoClaimTheSameSubjectVersion() {
    store.applySchema(new SchemaStore.Version("a-value", 1, 1, "\"string\""));
    assertThat(store.applySchema(new SchemaStore.Version("a-value", 1, 2, "\"int\""))).isFalse();
    assertThat(store.latest("a-value")).map(SchemaStore.Version::id).contains(1);
  }

  @Test
  void subjectLevelOverridesGlobal_andClearingFallsBack() {
    store.applyConfig(null, CompatibilityLevel.FULL);
    store.applyConfig("a-value", CompatibilityLevel.NONE);
    assertThat(store.effectiveLevel("a-value")).isEqualTo(CompatibilityLevel.NONE);
    assertThat(store.effectiveLevel("b-value")).isEqualTo(CompatibilityLevel.FULL);

    store.applyConfig("a-value", null);
    assertThat(store.effectiveLevel("a-value")).isEqualTo(CompatibilityLevel.FULL);
  }
}
