package io.healthmesh.edge.collect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ShardedMapTest {

  @Test
  void keepsEveryEarlierVersionAsItWas_whenLaterOnesAreEditedAndGrown() {
    Random random = new Random(1);
    ShardedMap<Integer, Integer> version = ShardedMap.empty();
    Map<Integer, Integer> expected = new HashMap<>();
    Map<ShardedMap<Integer, Integer>, Map<Integer, Integer>> earlier = new HashMap<>();
    for (int round = 0; round < 60; round++) {
      ShardedMap.Editor<Integer, Integer> edit = version.edit();
      // Rounds grow the map past several shard-count steps (64 entries a shard), then shrink it.
      int changes = round < 40 ? 2_000 : 500;
      for (int i = 0; i < changes; i++) {
        int key = random.nextInt(100_000);
        if (round >= 40 || random.nextInt(5) == 0) {
          edit.remove(key);
          expected.remove(key);
        } else {
          edit.put(key, round);
          expected.put(key, round);
        }
        assertThat(edit.get(key)).isEqualTo(expected.get(key));
      }
      version = edit.done();
      earlier.put(version, new HashMap<>(expected));
    }
    earlier.forEach((map, content) -> {
      assertThat(map.size()).isEqualTo(content.size());
      Map<Integer, Integer> seen = new HashMap<>();
      map.forEach(seen::put);
      assertThat(seen).isEqualTo(content);
      content.forEach((k, v) -> assertThat(map.get(k)).isEqualTo(v));
    });
  }

  @Test
  void sharesTheShardsAChangeDoesNotTouch() {
    ShardedMap.Editor<String, String> edit = ShardedMap.<String, String>empty().edit();
    for (int i = 0; i < 100_000; i++) {
      edit.put("k" + i, "v");
    }
    ShardedMap<String, String> before = edit.done();
    ShardedMap<String, String> after = before.edit().put("k1", "changed").done();
    assertThat(after.get("k1")).isEqualTo("changed");
    assertThat(before.get("k1")).isEqualTo("v");
    assertThat(after.size()).isEqualTo(before.size());
    assertThat(after.sharedShards(before)).isEqualTo(after.shardCount() - 1);
  }
}
