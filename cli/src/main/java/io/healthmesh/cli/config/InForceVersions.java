package io.healthmesh.cli.config;

import io.healthmesh.cli.kafka.KeyBytes;
import io.healthmesh.cli.kafka.TopicScan;
import io.healthmesh.events.ConfigInForce;
import io.healthmesh.events.DeadLetter;
import io.healthmesh.events.DeadLetterReason;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.KafkaRefusal;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Where a config topic's latest record broke a rule, the edges keep an earlier version in force
 * and say which on {@code config-in-force}; {@code get} shows that version, and {@code apply}
 * rewrites the resource (it is marked damaged) so that the topic's latest record is valid again.
 */
final class InForceVersions {
  /** Where the latest record of a resource is. */
  record At(int partition, long offset) {}

  private InForceVersions() {}

  /**
   * What the two side topics say about the configuration records: which ones the topology
   * dead-lettered as breaking a rule ({@code topic:partition:offset} to the reason), and the
   * edges' latest {@code config-in-force} entries.
   */
  record Verdicts(Map<String, String> rejectedByTopology, Map<String, ConfigInForce> inForce,
      Set<Resource.Ref> watched) {
    static final Verdicts NONE = of(Map.of(), Map.of());

    /** {@code watched}: the resources the edges' entries are about. */
    static Verdicts of(Map<String, String> rejectedByTopology, Map<String, ConfigInForce> inForce) {
      Set<Resource.Ref> watched = new HashSet<>();
      for (ConfigInForce entry : inForce.values()) {
        ResourceKind kind = kindOf(entry.getTopic());
        if (kind != null) {
          watched.add(new Resource.Ref(kind, entry.getKey()));
        }
      }
      return new Verdicts(rejectedByTopology, inForce, watched);
    }

    /**
     * Why the topology rejected the record at this place, or null. Nearly always it rejected
     * none, and then no record's place is spelled out to look it up.
     */
    String rejection(String topic, int partition, long offset) {
      return rejectedByTopology.isEmpty() ? null : rejectedByTopology.get(topic + ":" + partition + ":" + offset);
    }

    /**
     * Whether an edge keeps another version of this resource in force: {@link #apply} needs
     * where the latest record of these alone is, and nearly always there are none.
     */
    boolean watches(Resource.Ref ref) {
      return !watched.isEmpty() && watched.contains(ref);
    }
  }

  /**
   * Both side topics in one pass of {@code scan}: a narrow command pays for one more read, not two.
   * A topic that does not exist yet (a cluster set up before it) recorded nothing.
   */
  static Verdicts read(TopicScan scan, SchemaRegistryClient registry, List<String> warnings) {
    String letters = Topics.CONFIG_DLQ.name();
    Deserializer<DeadLetter> deadLetters = Topics.CONFIG_DLQ.valueSerde(registry).deserializer();
    Map<String, String> rejected = new HashMap<>();
    Map<KeyBytes, ConsumerRecord<byte[], byte[]>> lastEntries = new HashMap<>();
    long[] unreadableLetters = {0};
    try {
      scan.readAll(List.of(letters, Topics.CONFIG_IN_FORCE.name()), null, r -> {
        if (!r.topic().equals(letters)) {
          TopicScan.keepLatest(lastEntries, r);
          return;
        }
        try {
          DeadLetter letter = deadLetters.deserialize(letters, r.value());
          if (letter != null && letter.getReason() == DeadLetterReason.INVALID
              && kindOf(letter.getSourceTopic()) != null && letter.getSourceOffset() >= 0) {
            rejected.put(letter.getSourceTopic() + ":" + letter.getSourcePartition() + ":" + letter.getSourceOffset(),
                letter.getMessage());
          }
        } catch (SerializationException e) {
          TopicScan.failIfRegistryFailed(e);
          unreadableLetters[0]++;
        }
      });
    } catch (RuntimeException e) {
      if (e instanceof AvroDeserializationException || KafkaRefusal.of(e).isPresent()) {
        throw e; // the registry away, or a missing ACL, is not a missing topic
      }
      return Verdicts.NONE;
    }
    if (unreadableLetters[0] > 0) {
      warnings.add(unreadableLetters[0] + " record(s) of " + letters + " could not be read and are left out");
    }
    return Verdicts.of(rejected, TopicScan.decodeLatest(Topics.CONFIG_IN_FORCE.name(), lastEntries.values(),
        Topics.CONFIG_IN_FORCE.keySerde(registry).deserializer(),
        Topics.CONFIG_IN_FORCE.valueSerde(registry).deserializer(), k -> true, k -> true, warnings::add));
  }

  /** {@code latest} holds at least the latest records of the resources {@link Verdicts#watches}. */
  static <V> void apply(Shelf<V> shelf, Map<Resource.Ref, At> latest, Map<String, ConfigInForce> entries,
      SchemaRegistryClient registry, List<String> warnings) {
    for (ConfigInForce entry : entries.values()) {
      ResourceKind kind = kindOf(entry.getTopic());
      At at = kind == null ? null : latest.get(new Resource.Ref(kind, entry.getKey()));
      if (at == null || at.partition() != entry.getPartition() || at.offset() <= entry.getInForceOffset()
          || at.offset() > entry.getRejectedOffset()) {
        continue; // a later version was taken, or the entry is about another partition
      }
      if (entry.getInForce() == null) {
        shelf.put(kind, entry.getKey(), null);
        warnings.add(kind.kindName() + " " + entry.getKey() + ": its latest record (" + entry.getTopic() + "@"
            + at.partition() + ":" + at.offset() + ") breaks a rule (" + String.join("; ", entry.getProblems())
            + ") and no version of it is in force: the edges serve nothing for it, so it is not shown; applying "
            + kind.kindName() + " " + entry.getKey() + " writes a valid one");
        continue;
      }
      ByteBuffer bytes = entry.getInForce().duplicate();
      byte[] value = new byte[bytes.remaining()];
      bytes.get(value);
      SpecificRecord inForce = kind.topic().valueSerde(registry).deserializer().deserialize(entry.getTopic(), value);
      shelf.put(kind, entry.getKey(), shelf.kept(kind, inForce));
      shelf.damaged(kind, entry.getKey());
      warnings.add(kind.kindName() + " " + entry.getKey() + ": its latest record (" + entry.getTopic() + "@"
          + at.partition() + ":" + at.offset() + ") breaks a rule (" + String.join("; ", entry.getProblems())
          + "); the edges keep the version at offset " + entry.getInForceOffset() + " in force, shown here, and applying "
          + kind.kindName() + " " + entry.getKey() + " rewrites it");
    }
  }

  private static ResourceKind kindOf(String topic) {
    for (ResourceKind kind : ResourceKind.values()) {
      if (kind.topic().name().equals(topic)) {
        return kind;
      }
    }
    return null;
  }
}
