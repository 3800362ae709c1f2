package io.healthmesh.streams.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healthmesh.schemas.InMemorySchemaRegistryClient;
import io.healthmesh.streams.output.Out;
import io.healthmesh.streams.store.SkipListStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the table keeps in its store is enough to rebuild it, through regrouping and removals. */
class EndpointTableTest {
  private MockProcessorContext<String, Out> context;
  private KeyValueStore<String, EndpointTable.Group> store;

  @BeforeEach
  void setUp() {
    context = new MockProcessorContext<>();
    store = Stores.keyValueStoreBuilder(SkipListStore.supplier(PerServiceStores.ENDPOINTS), Serdes.String(),
        new EndpointGroupSerde(new InMemorySchemaRegistryClient())).withLoggingDisabled().build();
    store.init(context.getStateStoreContext(), store);
    context.addStateStore(store);
  }

  @Test
  void endpoints_areGroupedByPositionAndRestored_whenTheTableIsRebuiltFromItsStore() {
    EndpointTable table = new EndpointTable(context, PerServiceStores.ENDPOINTS, EndpointWrites.AT_COMMIT);
    for (int i = 0; i < 40; i++) {
      apply(table, table.create("svc", "vm-" + i, i), i % 2 == 0, 1_000 + i);
    }
    apply(table, table.create("", "10.0.0.1", 0), true, 5_000);
    assertEquals(Map.of(), groupSizes(), "nothing is stored before the commit");

    table.flush();
    assertEquals(Map.of("/10.0.0.1", 1, "svc#0", 32, "svc#1", 8), groupSizes());
    assertEquals(describe(table, 40), describe(new EndpointTable(context, PerServiceStores.ENDPOINTS, EndpointWrites.AT_COMMIT), 40));
  }

  @Test
  void endpoints_moveToTheGroupOfTheirNewPosition_whenTheConfigurationReordersThem() {
    EndpointTable table = new EndpointTable(context, PerServiceStores.ENDPOINTS, EndpointWrites.AT_COMMIT);
    for (int i = 0; i < 40; i++) {
      apply(table, table.create("svc", "vm-" + i, i), true, 1_000 + i);
    }
    table.flush();
    String before = describe(table, 40);
    table.remove("svc", "vm-39");
    // reversed, and one fewer: vm-38 is now first
    table.regroup("svc", id -> 38 - Integer.parseInt(id.substring(3)));
    table.flush();

    Map<String, List<String>> members = groupMembers();
    assertEquals(32, members.get("svc#0").size());
    assertTrue(members.get("svc#0").contains("vm-38") && members.get("svc#1").contains("vm-0"), members.toString());
    assertEquals(7, members.get("svc#1").size());
    EndpointTable rebuilt = new EndpointTable(context, PerServiceStores.ENDPOINTS, EndpointWrites.AT_COMMIT);
    assertNull(rebuilt.get("svc", "vm-39"));
    assertEquals(before.replace("vm-39=HEALTHY@1039;", ""), describe(rebuilt, 40));
  }

  @Test
  void emptiedGroup_isDeletedFromTheStore_whenItsLastEndpointGoes() {
    EndpointTable table = new EndpointTable(context, PerServiceStores.ENDPOINTS, EndpointWrites.AT_COMMIT);
    apply(table, table.create("svc", "vm-0", 0), true, 1_000);
    apply(table, table.create("svc", "vm-40", 40), true, 1_000);
    table.flush();
    table.remove("svc", "vm-40");
    apply(table, table.create("svc", "vm-41", 41), true, 2_000); // a new group under the same key
    table.remove("svc", "vm-0");
    table.flush();
    assertEquals(Map.of("svc#1", List.of("vm-41")), groupMembers());
  }

  @Test
  void everyChange_isInTheStoreAtOnce_whenWrittenThroughTheCache() {
    EndpointTable table = new EndpointTable(context, PerServiceStores.ENDPOINTS, EndpointWrites.THROUGH_CACHE);
    for (int i = 0; i < 40; i++) {
      apply(table, table.create("svc", "vm-" + i, i), i % 2 == 0, 1_000 + i);
    }
    assertEquals(Map.of("svc#0", 32, "svc#1", 8), groupSizes(), "no flush needed");
    assertEquals(describe(table, 40), describe(new EndpointTable(context, PerServiceStores.ENDPOINTS, EndpointWrites.AT_COMMIT), 40));

    table.remove("svc", "vm-39");
    table.regroup("svc", id -> 38 - Integer.parseInt(id.substring(3)));
    assertEquals(32, groupMembers().get("svc#0").size());
    assertTrue(groupMembers().get("svc#0").contains("vm-38"), groupMembers().toString());
    assertEquals(7, groupMembers().get("svc#1").size());
  }

  @Test
  void dueEndpoints_comeByExpiryThenKey_whenSomeWereRefreshedSinceTheyWereIndexed() {
    EndpointTable table = new EndpointTable(context, PerServiceStores.ENDPOINTS, EndpointWrites.AT_COMMIT);
    EndpointState b = table.create("svc", "b", 0);
    EndpointState a = table.create("svc", "a", 1);
    EndpointState c = table.create("svc", "c", 2);
    apply(table, b, true, 10_000); // expires at 25,000
    apply(table, a, true, 10_000);
    apply(table, c, true, 9_000); // expires at 24,000
    apply(table, a, true, 30_000); // refreshed: expires at 45,000

    assertEquals(List.of(), table.dueAt(23_999));
    List<String> due = new ArrayList<>();
    table.dueAt(25_000).forEach(s -> due.add(s.id + "@" + s.expiresAt));
    assertEquals(List.of("c@24000", "b@25000"), due);
    table.dueAt(25_000).forEach(s -> due.add("again " + s.id));
    assertEquals(2, due.size(), "an endpoint is due once until it expires again");
    assertEquals(List.of("a"), table.dueAt(45_000).stream().map(s -> s.id).toList());
  }

  private void apply(EndpointTable table, EndpointState s, boolean success, long eventTime) {
    boolean first = s.lastEventTime == 0;
    EndpointStateMachine.apply(s, first, "", success, eventTime, eventTime, io.healthmesh.config.HealthCheckSpec.newBuilder()
        .setHealthyThreshold(1).setUnhealthyThreshold(1).setCheckIntervalSec(5).build());
    table.save(s);
  }

  private static String describe(EndpointTable table, int endpoints) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < endpoints; i++) {
      EndpointState s = table.get("svc", "vm-" + i);
      if (s != null) {
        out.append(s.id).append('=').append(s.status).append('@').append(s.lastEventTime).append(';');
      }
    }
    EndpointState external = table.get("", "10.0.0.1");
    return out + (external == null ? "" : external.key + "=" + external.status);
  }

  private Map<String, Integer> groupSizes() {
    Map<String, Integer> sizes = new HashMap<>();
    groupMembers().forEach((k, v) -> sizes.put(k, v.size()));
    return sizes;
  }

  private Map<String, List<String>> groupMembers() {
    Map<String, List<String>> members = new TreeMap<>();
    try (KeyValueIterator<String, EndpointTable.Group> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, EndpointTable.Group> kv = it.next();
        members.put(kv.key, kv.value.members.stream().map(s -> s.id).toList());
      }
    }
    return members;
  }

}
