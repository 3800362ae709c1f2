package io.healthmesh.streams.store;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * An in-memory key-value store whose iterators walk its entries. Kafka Streams' own in-memory
 * store makes every iterator copy the key set, then looks each key up twice as it goes: an
 * interactive query of 200,000 entries spent most of its time there. Here a concurrent skip list
 * lets the interactive query's thread walk the map while the stream thread writes it; the walk
 * is weakly consistent, as the copied key set was (it too read each value as it was then). The
 * processors only iterate a store when their task starts, before any write.
 */
public final class SkipListStore extends HeapStore implements KeyValueStore<Bytes, byte[]> {
  private final ConcurrentSkipListMap<Bytes, byte[]> map = new ConcurrentSkipListMap<>();
  private final Position position = Position.emptyPosition();
  private StateStoreContext context;

  SkipListStore(String name) {
    super(name);
  }

  /** What {@link org.apache.kafka.streams.state.Stores#keyValueStoreBuilder} builds this store from. */
  public static KeyValueBytesStoreSupplier supplier(String name) {
    return new KeyValueBytesStoreSupplier() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public KeyValueStore<Bytes, byte[]> get() {
        return new SkipListStore(name);
      }

      @Override
      public String metricsScope() {
        return "skip-list";
      }
    };
  }

  @Override
  public void init(StateStoreContext context, StateStore root) {
    this.context = context;
    open(context, root, (BatchingStateRestoreCallback) this::restoreAll);
  }

  private void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
    for (KeyValue<byte[], byte[]> record : records) {
      write(Bytes.wrap(record.key), record.value);
    }
  }

  /** Where this store's writes came from, which Kafka Streams' change-logging layer asks on each write. */
  @Override
  public Position getPosition() {
    return position;
  }

  @Override
  public byte[] get(Bytes key) {
    return map.get(key);
  }

  @Override
  public void put(Bytes key, byte[] value) {
    write(key, value);
    written();
  }

  /** A null value deletes, as in every Kafka Streams store; the old value, or null. */
  private byte[] write(Bytes key, byte[] value) {
    return value == null ? map.remove(key) : map.put(key, value);
  }

  /** A write from a punctuation or a commit hook has no source record (its topic is null): no position. */
  private void written() {
    if (context != null) {
      context.recordMetadata().filter(r -> r.topic() != null)
          .ifPresent(r -> position.withComponent(r.topic(), r.partition(), r.offset()));
    }
  }

  @Override
  public byte[] putIfAbsent(Bytes key, byte[] value) {
    byte[] old = map.get(key);
    if (old == null) {
      put(key, value);
    }
    return old;
  }

  @Override
  public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
    for (KeyValue<Bytes, byte[]> entry : entries) {
      put(entry.key, entry.value);
    }
  }

  @Override
  public byte[] delete(Bytes key) {
    byte[] old = write(key, null);
    written();
    return old;
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
    return new Walk(between(from, to).entrySet().iterator());
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
    return new Walk(between(from, to).descendingMap().entrySet().iterator());
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> all() {
    return new Walk(map.entrySet().iterator());
  }

  @Override
  public KeyValueIterator<Bytes, byte[]> reverseAll() {
    return new Walk(map.descendingMap().entrySet().iterator());
  }

  @Override
  public <S extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, S serializer) {
    Bytes from = Bytes.wrap(serializer.serialize(null, prefix));
    return new Walk(startingWith(from).entrySet().iterator());
  }

  /** Both bounds inclusive, either open when null; empty when {@code from} is past {@code to}, as Kafka's stores answer. */
  private NavigableMap<Bytes, byte[]> between(Bytes from, Bytes to) {
    if (from != null && to != null && from.compareTo(to) > 0) {
      return Collections.emptyNavigableMap();
    }
    NavigableMap<Bytes, byte[]> tail = from == null ? map : map.tailMap(from, true);
    return to == null ? tail : tail.headMap(to, true);
  }

  private NavigableMap<Bytes, byte[]> startingWith(Bytes prefix) {
    byte[] bytes = prefix.get();
    int last = bytes.length - 1;
    while (last >= 0 && bytes[last] == (byte) 0xFF) {
      last--;
    }
    if (last < 0) {
      return map.tailMap(prefix, true);
    }
    // the first key past every key with this prefix: the prefix up to its last byte that can grow, grown by one
    byte[] past = Arrays.copyOf(bytes, last + 1);
    past[last]++;
    return map.subMap(prefix, true, Bytes.wrap(past), false);
  }

  @Override
  public long approximateNumEntries() {
    return map.size();
  }

  @Override
  public void close() {
    map.clear();
    closed();
  }

  /** One pass over a view of the map, peeking as Kafka Streams' caching layer needs. */
  private static final class Walk implements KeyValueIterator<Bytes, byte[]> {
    private final Iterator<Map.Entry<Bytes, byte[]>> entries;
    private KeyValue<Bytes, byte[]> next;

    Walk(Iterator<Map.Entry<Bytes, byte[]>> entries) {
      this.entries = entries;
    }

    @Override
    public boolean hasNext() {
      if (next == null && entries.hasNext()) {
        Map.Entry<Bytes, byte[]> e = entries.next();
        next = KeyValue.pair(e.getKey(), e.getValue());
      }
      return next != null;
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      KeyValue<Bytes, byte[]> taken = next;
      next = null;
      return taken;
    }

    @Override
    public Bytes peekNextKey() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return next.key;
    }

    @Override
    public void close() {
      // nothing held: the walk is over a live view of the map
    }
  }
}
