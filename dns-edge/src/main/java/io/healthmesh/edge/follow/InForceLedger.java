package io.healthmesh.edge.follow;

import io.healthmesh.events.ConfigInForce;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * What the edges keep in force when later versions of a configuration record break a rule, kept
 * on the compacted {@code config-in-force} topic so that it outlives compaction: a running edge
 * that rejects a version writes the one it keeps; an edge that reads only the rejected version
 * (compaction removed the good one) takes the kept one from here instead of nothing. One
 * instance per read of the topics; it never blocks, and what it cannot write is only counted.
 */
final class InForceLedger {
  /** A version to put in force from the ledger: its value bytes and its offset. */
  record Restore(String topic, String key, byte[] value, long offset) {}

  private record Pending(int partition, long offset) {}

  private final Map<String, ConfigInForce> entries = new HashMap<>();
  private final Map<String, Pending> unresolved = new HashMap<>();
  /** Writes an entry, or deletes it (null), under its ledger key. */
  private final BiConsumer<String, ConfigInForce> writer;
  /**
   * What to write once the whole of the topics was read: before that, what this edge concludes
   * may be missing what the topic already says (an entry not read yet), and must not replace it.
   */
  private final Map<String, ConfigInForce> deferred = new LinkedHashMap<>();
  private boolean complete;

  InForceLedger(BiConsumer<String, ConfigInForce> writer) {
    this.writer = writer;
  }

  static String key(String topic, String recordKey) {
    return topic + "|" + recordKey;
  }

  /**
   * A version at {@code offset} was rejected. With a version in force, that version is written
   * down; without one, a ledger entry that covers this offset says which version to serve.
   *
   * @param encodedInForce the version in force as written on its topic; null when there is none
   * @return the version to put in force, or null
   */
  Restore rejected(String topic, String key, int partition, long offset, List<String> problems,
      byte[] encodedInForce, long inForceOffset) {
    String ledgerKey = key(topic, key);
    if (encodedInForce != null) {
      ConfigInForce known = entries.get(ledgerKey);
      if (known == null || known.getPartition() != partition || known.getInForceOffset() != inForceOffset
          || known.getRejectedOffset() < offset) {
        ConfigInForce entry = ConfigInForce.newBuilder().setTopic(topic).setKey(key).setPartition(partition)
            .setInForceOffset(inForceOffset).setInForce(ByteBuffer.wrap(encodedInForce)).setRejectedOffset(offset)
            .setProblems(problems).setRejectedAt(Instant.now()).build();
        entries.put(ledgerKey, entry);
        emit(ledgerKey, entry);
      }
      return null;
    }
    ConfigInForce entry = entries.get(ledgerKey);
    if (covers(entry, partition, offset)) {
      return restore(entry);
    }
    unresolved.put(ledgerKey, new Pending(partition, offset));
    if (entry == null || entry.getInForce() == null && entry.getRejectedOffset() < offset) {
      // Nothing in force: said too, so that healthctl does not show the record as if it were.
      ConfigInForce none = ConfigInForce.newBuilder().setTopic(topic).setKey(key).setPartition(partition)
          .setInForceOffset(-1).setInForce(null).setRejectedOffset(offset).setProblems(problems)
          .setRejectedAt(Instant.now()).build();
      entries.put(ledgerKey, none);
      emit(ledgerKey, none);
    }
    return null;
  }

  /** A version at {@code offset} was taken: an entry about older versions is obsolete. */
  void accepted(String topic, String key, int partition, long offset) {
    String ledgerKey = key(topic, key);
    unresolved.remove(ledgerKey);
    ConfigInForce entry = entries.get(ledgerKey);
    if (entry != null && (entry.getPartition() != partition || entry.getRejectedOffset() < offset)) {
      entries.remove(ledgerKey);
      emit(ledgerKey, null);
    }
  }

  /** An entry read from the topic ({@code entry} null: deleted); returns a version to restore when it resolves a rejection. */
  Restore read(String ledgerKey, ConfigInForce entry) {
    if (entry == null) {
      entries.remove(ledgerKey);
      return null;
    }
    ConfigInForce known = entries.get(ledgerKey);
    if (known == null || known.getRejectedOffset() <= entry.getRejectedOffset()
        || known.getInForce() == null && entry.getInForce() != null) {
      entries.put(ledgerKey, entry);
      ConfigInForce mine = deferred.get(ledgerKey);
      if (mine != null && (mine.getRejectedOffset() <= entry.getRejectedOffset()
          || mine.getInForce() == null && entry.getInForce() != null)) {
        deferred.remove(ledgerKey); // the topic already says as much, or knows a version this read has not seen
      }
    }
    Pending pending = unresolved.get(ledgerKey);
    if (pending != null && covers(entry, pending.partition(), pending.offset())) {
      unresolved.remove(ledgerKey);
      return restore(entry);
    }
    return null;
  }

  /** The whole of the topics was read: what was concluded meanwhile is written, and from now on at once. */
  void complete() {
    complete = true;
    deferred.forEach(writer);
    deferred.clear();
  }

  private void emit(String ledgerKey, ConfigInForce entry) {
    if (complete) {
      writer.accept(ledgerKey, entry);
    } else {
      deferred.put(ledgerKey, entry);
    }
  }

  /** Every version after the one in force, up to the rejected one, was rejected. */
  private static boolean covers(ConfigInForce entry, int partition, long offset) {
    return entry != null && entry.getPartition() == partition && entry.getInForceOffset() < offset
        && offset <= entry.getRejectedOffset();
  }

  /** Null when the entry says nothing is in force. */
  private static Restore restore(ConfigInForce entry) {
    if (entry.getInForce() == null) {
      return null;
    }
    ByteBuffer buffer = entry.getInForce().duplicate();
    byte[] value = new byte[buffer.remaining()];
    buffer.get(value);
    return new Restore(entry.getTopic(), entry.getKey(), value, entry.getInForceOffset());
  }
}
