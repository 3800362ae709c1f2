package io.healthmesh.streams.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/**
 * The topology's stores must answer every read exactly as Kafka Streams' own in-memory store
 * does (the processors and the interactive queries were written against it), so each read is
 * checked against that store after the same writes.
 */
class SkipListStoreTest {
  private final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();

  private KeyValueStore<Bytes, byte[]> open(KeyValueStore<Bytes, byte[]> store) {
    store.init(context.getStateStoreContext(), store);
    return store;
  }

  /** Keys of one to three bytes from an alphabet with 0x00 and 0xFF, so prefixes end at the byte edges. */
  private static Bytes key(Random random) {
    byte[] alphabet = {0x00, 0x01, 'a', 'b', (byte) 0x7F, (byte) 0x80, (byte) 0xFF};
    byte[] key = new byte[1 + random.nextInt(3)];
    for (int i = 0; i < key.length; i++) {
      key[i] = alphabet[random.nextInt(alphabet.length)];
    }
    return Bytes.wrap(key);
  }

  private static List<String> drain(KeyValueIterator<Bytes, byte[]> it) {
    List<String> seen = new ArrayList<>();
    try (it) {
      while (it.hasNext()) {
        Bytes peeked = it.peekNextKey();
        KeyValue<Bytes, byte[]> kv = it.next();
        assertThat(kv.key).isEqualTo(peeked);
        seen.add(kv.key + "=" + new String(kv.value));
      }
    }
    return seen;
  }

  @Test
  void answersEveryReadAsKafkaStreamsInMemoryStore_whenWrittenTheSameWay() {
    Random random = new Random(7);
    for (int round = 0; round < 50; round++) {
      KeyValueStore<Bytes, byte[]> ours = open(SkipListStore.supplier("t").get());
      KeyValueStore<Bytes, byte[]> kafkas = open(Stores.inMemoryKeyValueStore("t").get());
      for (int op = 0; op < 200; op++) {
        Bytes key = key(random);
        byte[] value = ("v" + op).getBytes();
        switch (random.nextInt(5)) {
          case 0 -> assertThat(ours.delete(key)).isEqualTo(kafkas.delete(key));
          case 1 -> assertThat(ours.putIfAbsent(key, value)).isEqualTo(kafkas.putIfAbsent(key, value));
          case 2 -> {
            ours.put(key, null);
            kafkas.put(key, null);
          }
          case 3 -> {
            List<KeyValue<Bytes, byte[]>> batch = List.of(KeyValue.pair(key, value), KeyValue.pair(key(random), value));
            ours.putAll(batch);
            kafkas.putAll(batch);
          }
          default -> {
            ours.put(key, value);
            kafkas.put(key, value);
          }
        }
        Bytes from = random.nextInt(8) == 0 ? null : key(random);
        Bytes to = random.nextInt(8) == 0 ? null : key(random);
        assertThat(ours.get(key)).isEqualTo(kafkas.get(key));
        assertThat(drain(ours.range(from, to))).isEqualTo(drain(kafkas.range(from, to)));
        assertThat(drain(ours.reverseRange(from, to))).isEqualTo(drain(kafkas.reverseRange(from, to)));
        // by its definition: Kafka's store cannot scan a prefix of 0xFF bytes only (it has no key past them)
        assertThat(drain(ours.prefixScan(key, new BytesSerializer()))).isEqualTo(startingWith(kafkas, key));
      }
      assertThat(drain(ours.all())).isEqualTo(drain(kafkas.all()));
      assertThat(drain(ours.reverseAll())).isEqualTo(drain(kafkas.reverseAll()));
      assertThat(ours.approximateNumEntries()).isEqualTo(kafkas.approximateNumEntries());
    }
  }

  private static List<String> startingWith(KeyValueStore<Bytes, byte[]> store, Bytes prefix) {
    List<String> seen = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> kv = it.next();
        byte[] key = kv.key.get();
        if (key.length >= prefix.get().length
            && Arrays.equals(key, 0, prefix.get().length, prefix.get(), 0, prefix.get().length)) {
          seen.add(kv.key + "=" + new String(kv.value));
        }
      }
    }
    return seen;
  }

  @Test
  void positionFollowsSourceRecords_whenWritesComeFromRecordsAndFromPunctuations() {
    KeyValueStore<Bytes, byte[]> store = open(SkipListStore.supplier("t").get());
    context.setRecordMetadata("probes", 2, 41);
    store.put(number(1), new byte[] {1});
    // a punctuation or a commit hook writes with no source record: Kafka gives its metadata a null topic
    context.setRecordMetadata(null, -1, -1);
    store.put(number(2), new byte[] {1});
    store.delete(number(1));

    assertThat(store.getPosition().getTopics()).containsExactly("probes");
    assertThat(store.getPosition().getPartitionPositions("probes")).containsEntry(2, 41L);
    assertThat(store.get(number(2))).isNotNull();
  }

  @Test
  void walkSeesEveryKeyPresentThroughout_whenAnotherThreadWritesMeanwhile() throws Exception {
    KeyValueStore<Bytes, byte[]> store = open(SkipListStore.supplier("t").get());
    int keys = 20_000;
    for (int i = 0; i < keys; i += 2) {
      store.put(number(i), new byte[] {1});
    }
    AtomicBoolean walking = new AtomicBoolean(true);
    Thread writer = new Thread(() -> {
      Random random = new Random(3);
      while (walking.get()) {
        Bytes odd = number(2 * random.nextInt(keys / 2) + 1);
        store.put(odd, random.nextBoolean() ? new byte[] {2} : null);
      }
    });
    writer.start();
    List<Integer> evens = new ArrayList<>();
    int walks = 0;
    try {
      for (; walks < 20; walks++) {
        evens.clear();
        int last = -1;
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
          while (it.hasNext()) {
            int n = ByteBuffer.wrap(it.next().key.get()).getInt();
            assertThat(n).isGreaterThan(last);
            last = n;
            if (n % 2 == 0) {
              evens.add(n);
            }
          }
        }
        assertThat(evens).hasSize(keys / 2);
      }
    } finally {
      walking.set(false);
      writer.join();
    }
    assertThat(walks).isEqualTo(20);
  }

  private static Bytes number(int n) {
    return Bytes.wrap(ByteBuffer.allocate(4).putInt(n).array());
  }
}
