package io.healthmesh.edge.collect;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * An immutable map whose next version shares everything but the shards a change touches, so
 * that a snapshot of 100,000 names changes in microseconds when one name changes, and queries
 * read the old version until the new one is swapped in whole. Shards are plain hash maps that
 * are never written after an {@link Editor} hands them out; the shard count grows with the
 * size, keeping about 64 entries in a shard (copying one costs a microsecond or two).
 */
public final class ShardedMap<K, V> {
  private static final int MIN_BITS = 4;
  private static final int MAX_BITS = 14;
  private static final int LOAD = 64;
  private static final ShardedMap<?, ?> EMPTY = new ShardedMap<>(emptyShards(MIN_BITS), MIN_BITS, 0);

  private final Map<K, V>[] shards;
  private final int bits;
  private final int size;

  private ShardedMap(Map<K, V>[] shards, int bits, int size) {
    this.shards = shards;
    this.bits = bits;
    this.size = size;
  }

  @SuppressWarnings("unchecked")
  public static <K, V> ShardedMap<K, V> empty() {
    return (ShardedMap<K, V>) EMPTY;
  }

  public V get(Object key) {
    return shards[shard(key, bits)].get(key);
  }

  public boolean containsKey(Object key) {
    return shards[shard(key, bits)].containsKey(key);
  }

  public int size() {
    return size;
  }

  public void forEach(BiConsumer<? super K, ? super V> action) {
    for (Map<K, V> shard : shards) {
      shard.forEach(action);
    }
  }

  int shardCount() {
    return shards.length;
  }

  /** How many shards this version holds by the same reference as {@code other}: what the two share. */
  int sharedShards(ShardedMap<?, ?> other) {
    if (other.shards.length != shards.length) {
      return 0;
    }
    int shared = 0;
    for (int i = 0; i < shards.length; i++) {
      shared += shards[i] == other.shards[i] ? 1 : 0;
    }
    return shared;
  }

  /** A change to this version; the version itself stays as it is. */
  public Editor<K, V> edit() {
    return new Editor<>(this);
  }

  // The high bits of a multiplicative hash pick the shard, so the shard maps, which index by
  // the low bits, still spread their entries over their tables.
  private static int shard(Object key, int bits) {
    return (key.hashCode() * 0x9E3779B9) >>> (32 - bits);
  }

  @SuppressWarnings("unchecked")
  private static <K, V> Map<K, V>[] emptyShards(int bits) {
    Map<K, V>[] shards = new Map[1 << bits];
    Arrays.fill(shards, Map.of());
    return shards;
  }

  /** Collects puts and removes, copying each touched shard once; not for use by two threads. */
  public static final class Editor<K, V> {
    private final Map<K, V>[] shards;
    private final boolean[] copied;
    private final int bits;
    private int size;

    private Editor(ShardedMap<K, V> base) {
      this.shards = base.shards.clone();
      this.copied = new boolean[shards.length];
      this.bits = base.bits;
      this.size = base.size;
    }

    public V get(Object key) {
      return shards[shard(key, bits)].get(key);
    }

    public Editor<K, V> put(K key, V value) {
      if (writable(key).put(key, value) == null) {
        size++;
      }
      return this;
    }

    public Editor<K, V> remove(Object key) {
      int i = shard(key, bits);
      if (shards[i].containsKey(key)) {
        writable(key).remove(key);
        size--;
      }
      return this;
    }

    private Map<K, V> writable(Object key) {
      int i = shard(key, bits);
      if (!copied[i]) {
        shards[i] = new HashMap<>(shards[i]);
        copied[i] = true;
      }
      return shards[i];
    }

    /** The new version. The editor must not be used after this. */
    public ShardedMap<K, V> done() {
      if (size <= LOAD << bits || bits >= MAX_BITS) {
        return new ShardedMap<>(shards, bits, size);
      }
      int grown = bits;
      while (size > LOAD << grown && grown < MAX_BITS) {
        grown += 2;
      }
      Map<K, V>[] spread = emptyShards(grown);
      for (Map<K, V> shard : shards) {
        for (Map.Entry<K, V> e : shard.entrySet()) {
          int i = shard(e.getKey(), grown);
          if (spread[i].isEmpty()) {
            spread[i] = new HashMap<>();
          }
          spread[i].put(e.getKey(), e.getValue());
        }
      }
      return new ShardedMap<>(spread, Math.min(grown, MAX_BITS), size);
    }
  }
}
