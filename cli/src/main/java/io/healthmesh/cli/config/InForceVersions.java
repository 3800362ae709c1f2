package io.healthmesh.cli.config;

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
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Where a config topic's latest record broke a rule, the edges keep an earlier version in force
 * and say which on {@code config-in-force}; {@code get} shows that version, and {@code apply}
 * rewrites the resource (it is marked damaged) so that the topic's latest record is valid again.
 */
final class InForceVersions {
  /** Where the latest record of a resource is. */
  record At(int partition, long offset) {}

  private InForceVersions() {}

  static void apply(Catalog catalog, Map<Resource.Ref, At> latest, TopicScan scan, SchemaRegistryClient registry,
      List<String> warnings) {
    Map<String, ConfigInForce> entries;
    try {
      entries = scan.latest(Topics.CONFIG_IN_FORCE.name(), Topics.CONFIG_IN_FORCE.keySerde(registry).deserializer(),
          Topics.CONFIG_IN_FORCE.valueSerde(registry).deserializer(), warnings::add);
    } catch (RuntimeException e) {
      if (KafkaRefusal.of(e).isPresent()) {
        throw e; // a missing ACL is not a missing topic
      }
      return; // a cluster set up before the topic existed: nothing was recorded
    }
    for (ConfigInForce entry : entries.values()) {
      ResourceKind kind = kindOf(entry.getTopic());
      At at = kind == null ? null : latest.get(new Resource.Ref(kind, entry.getKey()));
      if (at == null || at.partition() != entry.getPartition() || at.offset() <= entry.getInForceOffset()
          || at.offset() > entry.getRejectedOffset()) {
        continue; // a later version was taken, or the entry is about another partition
      }
      if (entry.getInForce() == null) {
        catalog.put(new Resource(kind, entry.getKey(), null, entry.getTopic()));
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
      catalog.put(new Resource(kind, entry.getKey(), inForce,
          entry.getTopic() + "@" + entry.getPartition() + ":" + entry.getInForceOffset()));
      catalog.damaged(kind, entry.getKey());
      warnings.add(kind.kindName() + " " + entry.getKey() + ": its latest record (" + entry.getTopic() + "@"
          + at.partition() + ":" + at.offset() + ") breaks a rule (" + String.join("; ", entry.getProblems())
          + "); the edges keep the version at offset " + entry.getInForceOffset() + " in force, shown here, and applying "
          + kind.kindName() + " " + entry.getKey() + " rewrites it");
    }
  }

  /**
   * Configuration records the topology dead-lettered as breaking a rule, by {@code topic:partition:offset},
   * with the reason; records it could not match yet (UNKNOWN_ENTITY) are not among them.
   */
  static Map<String, String> topologyRejections(TopicScan scan, SchemaRegistryClient registry, List<String> warnings) {
    Map<String, String> rejected = new HashMap<>();
    try {
      long skipped = scan.read(Topics.CONFIG_DLQ.name(), new ByteArrayDeserializer(),
          Topics.CONFIG_DLQ.valueSerde(registry).deserializer(), null, r -> {
            DeadLetter letter = r.value();
            if (letter != null && letter.getReason() == DeadLetterReason.INVALID
                && kindOf(letter.getSourceTopic()) != null && letter.getSourceOffset() >= 0) {
              rejected.put(letter.getSourceTopic() + ":" + letter.getSourcePartition() + ":" + letter.getSourceOffset(),
                  letter.getMessage());
            }
          });
      if (skipped > 0) {
        warnings.add(skipped + " record(s) of " + Topics.CONFIG_DLQ.name() + " could not be read and are left out");
      }
    } catch (RuntimeException e) {
      if (e instanceof AvroDeserializationException || KafkaRefusal.of(e).isPresent()) {
        throw e;
      }
      // no dead-letter topic yet: nothing was rejected
    }
    return rejected;
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
