package io.healthmesh.xds;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourceTableTest {
  @Test
  void versionsFollowContentOnly_whenTablesAreBuiltInAnyOrderOrOnAnotherReplica() { // R-XDS-5
    ResourceTable<Cluster> one = ResourceTable.<Cluster>empty().with(Map.of("a", cluster("a"), "b", cluster("b")));
    ResourceTable<Cluster> other = ResourceTable.<Cluster>empty().with(Map.of("b", cluster("b")))
        .with(Map.of("a", cluster("a")));
    assertThat(one.version()).isEqualTo(other.version());
    assertThat(one.version(List.of("a"))).isEqualTo(other.version(List.of("a")));
    assertThat(one.version(List.of("a", "b"))).isEqualTo(other.version(List.of("b", "a")));
  }

  @Test
  void onlyTheChangedNameHasANewVersion_whenOneResourceChanges() { // R-XDS-5
    ResourceTable<Cluster> before = ResourceTable.<Cluster>empty().with(Map.of("a", cluster("a"), "b", cluster("b")));
    ResourceTable<Cluster> after = before.with(Map.of("b", cluster("b").toBuilder().setLbPolicy(Cluster.LbPolicy.RANDOM).build()));
    assertThat(after.version(List.of("a"))).isEqualTo(before.version(List.of("a")));
    assertThat(after.version(List.of("b"))).isNotEqualTo(before.version(List.of("b")));
    assertThat(after.version()).isNotEqualTo(before.version());
    assertThat(before.with(Map.of("a", cluster("a")))).isSameAs(before);
  }

  @Test
  void removalChangesTheVersionBack_whenTheTableReturnsToAnEarlierContent() {
    ResourceTable<Cluster> base = ResourceTable.<Cluster>empty().with(Map.of("a", cluster("a")));
    Map<String, Cluster> removeB = new HashMap<>();
    removeB.put("b", null);
    ResourceTable<Cluster> added = base.with(Map.of("b", cluster("b")));
    ResourceTable<Cluster> removed = added.with(removeB);
    assertThat(removed.resources()).containsOnlyKeys("a");
    assertThat(removed.version()).isEqualTo(base.version()).isNotEqualTo(added.version());
    assertThat(removed.version(List.of("b"))).isEqualTo("absent");
  }

  private static Cluster cluster(String name) {
    return ConsumerResources.cluster(name);
  }
}
