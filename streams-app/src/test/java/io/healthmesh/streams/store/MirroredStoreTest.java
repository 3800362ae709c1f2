package io.healthmesh.streams.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** R-AGG-6 follows dependencies through these indexes: they must match a scan of the table at every step. */
class MirroredStoreTest {
  private MockProcessorContext<String, String> context;
  private KeyValueStore<String, String> store;

  @BeforeEach
  void setUp() {
    context = new MockProcessorContext<>();
    store = Stores.keyValueStoreBuilder(SkipListStore.supplier("t"), Serdes.String(), Serdes.String())
        .withLoggingDisabled().build();
    store.init(context.getStateStoreContext(), store);
    context.addStateStore(store);
  }

  /** A value "a,b" refers to a and b. */
  private static List<String> refs(String value) {
    return value.isEmpty() ? List.of() : Arrays.asList(value.split(","));
  }

  @Test
  void indexFollowsPutsReplacementsAndDeletes_inKeyOrder() {
    MirroredStore<String> table = new MirroredStore<>(context, "t");
    MirroredStore.Index<String> index = table.index(MirroredStoreTest::refs);
    table.put("c2", "svc-a,svc-b");
    table.put("c1", "svc-a");
    table.put("c3", "");
    assertThat(index.keysReferringTo("svc-a")).containsExactly("c1", "c2");
    assertThat(index.keysReferringTo("svc-b")).containsExactly("c2");

    table.put("c2", "svc-b"); // no longer refers to svc-a
    assertThat(index.keysReferringTo("svc-a")).containsExactly("c1");
    table.putOrDelete("c1", null);
    assertThat(index.keysReferringTo("svc-a")).isEmpty();
    table.delete("nothing-here");
    assertThat(index.keysReferringTo("svc-b")).containsExactly("c2");
    assertThat(store.get("c1")).as("the store is written through").isNull();
    assertThat(store.get("c2")).isEqualTo("svc-b");
  }

  @Test
  void indexIsRebuiltFromTheStore_whenTheTaskStartsAgain() {
    MirroredStore<String> before = new MirroredStore<>(context, "t");
    before.put("c1", "svc-a");
    before.put("c2", "svc-a,svc-b");
    MirroredStore<String> restarted = new MirroredStore<>(context, "t");
    MirroredStore.Index<String> index = restarted.index(MirroredStoreTest::refs);
    assertThat(index.keysReferringTo("svc-a")).containsExactly("c1", "c2");
    assertThat(index.keysReferringTo("svc-b")).containsExactly("c2");
    assertThat(restarted.prefix("c")).containsOnlyKeys("c1", "c2");
  }
}
