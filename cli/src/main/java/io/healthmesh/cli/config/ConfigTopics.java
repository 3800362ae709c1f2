package io.healthmesh.cli.config;

import io.healthmesh.cli.kafka.KeyBytes;
import io.healthmesh.cli.kafka.KeyPartition;
import io.healthmesh.cli.kafka.TopicScan;
import io.healthmesh.schemas.AvroSerializer;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.TopicCreator;
import io.healthmesh.schemas.Topics;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The configuration as stored in the compacted config topics: read whole from the beginning
 * (committed records only), and written all or nothing in one Kafka transaction.
 */
public final class ConfigTopics {
  private final Map<String, Object> client;
  private final SchemaRegistryClient registry;

  public ConfigTopics(Map<String, Object> client, SchemaRegistryClient registry) {
    this.client = Map.copyOf(client);
    this.registry = registry;
  }

  /** Creates the project's topics that are missing, so an apply can go first. */
  public void ensureTopics(int partitions, short replicationFactor) throws InterruptedException {
    try (Admin admin = Admin.create(client)) {
      new TopicCreator(partitions, replicationFactor).createMissing(admin, Topics.all());
    }
  }

  /**
   * As {@link #ensureTopics(int, short)}, for a client that may create only some (on a secured
   * cluster, none): the topics it may not create are left to an administrator, unless they are
   * {@code needed} and missing.
   */
  public void ensureTopics(int partitions, short replicationFactor, Set<String> needed) throws InterruptedException {
    try (Admin admin = Admin.create(client)) {
      new TopicCreator(partitions, replicationFactor).createMissing(admin, Topics.all(), needed);
    }
  }

  /**
   * The current configuration; records that cannot be read are reported on {@code warnings}, and
   * a resource whose latest record is one of them is marked damaged, so that {@code apply}
   * rewrites it even when the version before equals what is applied.
   */
  public Catalog read(List<String> warnings) {
    return read(EnumSet.allOf(ResourceKind.class), warnings);
  }

  /** As {@link #read(List)}, of the given kinds only: a reader that needs two kinds reads two topics. */
  public Catalog read(Set<ResourceKind> kinds, List<String> warnings) {
    return read(kinds, null, warnings);
  }

  /**
   * As {@link #read(Set, List)}, of the resources any record of which {@code only} accepts, tested
   * on the record's bytes (every record of such a resource is then read): a narrow question
   * decodes only the records that can answer it. Null reads every resource.
   */
  public Catalog read(Set<ResourceKind> kinds, Predicate<ConsumerRecord<byte[], byte[]>> only, List<String> warnings) {
    try (TopicScan scan = new TopicScan(client, false)) {
      return read(scan, kinds, new Selection(KeyPartition.ALL, null, only), InForceVersions.read(scan, registry,
          warnings), warnings);
    }
  }

  /**
   * As {@link #read(Set, Predicate, List)}, of the resources named {@code key}: each kind's topic is
   * read in the one partition where {@code apply} and {@code delete} put that key (Kafka's default
   * partitioner). A key found in no such partition is looked for in every partition, so a record
   * another producer put elsewhere is still found, with a warning.
   */
  public Catalog readNamed(Set<ResourceKind> kinds, String key, List<String> warnings) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    Predicate<byte[]> named = k -> Arrays.equals(k, bytes);
    try (TopicScan scan = new TopicScan(client, false)) {
      InForceVersions.Verdicts verdicts = InForceVersions.read(scan, registry, warnings);
      List<String> home = new ArrayList<>();
      Catalog catalog = read(scan, kinds, new Selection(KeyPartition.of(bytes), named, null), verdicts, home);
      if (kinds.stream().anyMatch(k -> catalog.get(k, key) != null || catalog.isDamaged(k, key))) {
        warnings.addAll(home);
        return catalog;
      }
      Catalog anywhere = read(scan, kinds, new Selection(KeyPartition.ALL, named, null), verdicts, warnings);
      for (ResourceKind kind : kinds) {
        if (anywhere.get(kind, key) != null) {
          warnings.add(kind.kindName() + " " + key + " is in a partition of " + kind.topic().name() + " other than the"
              + " one Kafka's default partitioner gives its key: it was written by another producer, and reading it"
              + " takes a read of the whole topic; applying it again writes it where it belongs");
        }
      }
      return anywhere;
    }
  }

  private Catalog read(TopicScan scan, Set<ResourceKind> kinds, Selection selection,
      InForceVersions.Verdicts verdicts, List<String> warnings) {
    Catalog catalog = new Catalog();
    read(scan, kinds, selection, verdicts, new Shelf.Records(catalog, registry), warnings);
    return catalog;
  }

  /**
   * Every resource of {@code kinds} as a table's summary of {@code width} characters ({@link
   * AvroJson#summary}), by kind and key: the resources {@link #read(Set, List)} gives, each made
   * from its record's bytes as it is read, and only its line kept.
   */
  public Map<ResourceKind, SortedMap<String, String>> summaries(Set<ResourceKind> kinds, int width,
      List<String> warnings) {
    Shelf.Summaries summaries = new Shelf.Summaries(registry, width);
    try (TopicScan scan = new TopicScan(client, false)) {
      read(scan, kinds, Selection.EVERYTHING, InForceVersions.read(scan, registry, warnings), summaries, warnings);
    }
    return summaries.lines();
  }

  private <V> void read(TopicScan scan, Set<ResourceKind> kinds, Selection selection,
      InForceVersions.Verdicts verdicts, Shelf<V> shelf, List<String> warnings) {
    // Only an unreadable record that is still its key's latest matters; one followed by a good
    // record is history.
    Map<Resource.Ref, String> unreadable = new LinkedHashMap<>();
    Map<Resource.Ref, InForceVersions.At> latest = new HashMap<>();
    // The topology keeps the version before a record it rejected; so does the catalog.
    Map<Resource.Ref, String> rejected = new LinkedHashMap<>();
    Superseded superseded = new Superseded();
    InForce inForce = new InForce(superseded,
        r -> verdicts.rejection(r.topic(), r.partition(), r.offset()) != null);
    readAll(scan, kinds, selection, shelf::read, inForce, (kind, r, value) -> {
      Resource.Ref ref = new Resource.Ref(kind, r.key());
      String reason = verdicts.rejection(r.topic(), r.partition(), r.offset());
      if (reason != null) {
        rejected.put(ref, kind.kindName() + " " + r.key() + ": its latest record (" + r.topic() + "@" + r.partition()
            + ":" + r.offset() + ") was rejected by the topology (" + reason + "); the version before it stays in force"
            + " and is shown here, and applying " + kind.kindName() + " " + r.key() + " rewrites it");
        return;
      }
      if (shelf.put(kind, r.key(), value)) {
        superseded.replaced(r.topic(), r.partition());
      }
      // this record settles an earlier unreadable or rejected one; nearly always there was none,
      // and a resource's name is then not hashed for nothing under the lock that orders the reads
      if (!unreadable.isEmpty()) {
        unreadable.remove(ref);
      }
      if (!rejected.isEmpty()) {
        rejected.remove(ref);
      }
      if (verdicts.watches(ref)) {
        latest.put(ref, new InForceVersions.At(r.partition(), r.offset()));
      }
    }, (kind, key, problem) -> {
      shelf.damaged(kind, key);
      unreadable.put(new Resource.Ref(kind, key), problem + "; the version before it stays in force, and applying "
          + kind.kindName() + " " + key + " rewrites it");
    });
    warnings.addAll(unreadable.values());
    rejected.forEach((ref, warning) -> {
      shelf.damaged(ref.kind(), ref.key());
      warnings.add(warning);
    });
    InForceVersions.apply(shelf, latest, verdicts.inForce(), registry, warnings);
  }

  /**
   * The latest version of every resource of one kind, from its topic alone: a narrow question
   * does not read the whole configuration. Unlike {@link #read}, a latest record that the edges
   * or the topology rejected is shown as it is.
   */
  @SuppressWarnings("unchecked")
  public <T extends SpecificRecord> Collection<T> latest(ResourceKind kind, List<String> warnings) {
    try (TopicScan scan = new TopicScan(client, false)) {
      return (Collection<T>) scan.latest(kind.topic().name(), new StringDeserializer(),
          kind.topic().valueSerde(registry).deserializer(), warnings::add).values();
    }
  }

  /** One configuration record, decoded; {@code value} is null for a deletion. */
  @FunctionalInterface
  public interface Visitor {
    void accept(ResourceKind kind, ConsumerRecord<String, ?> record, SpecificRecord value);
  }

  /** A record that could not be decoded: its kind, its key and why. */
  @FunctionalInterface
  public interface Unreadable {
    void accept(ResourceKind kind, String key, String problem);
  }

  /**
   * Every record of every config topic, in one pass, in offset order per partition (so per key);
   * a record that cannot be decoded is left out and reported to {@code warnings}.
   */
  public static void readAll(TopicScan scan, SchemaRegistryClient registry, Visitor each,
      Consumer<String> warnings) {
    readAll(scan, registry, each, (kind, key, problem) -> warnings.accept(problem));
  }

  /** As {@link #readAll(TopicScan, SchemaRegistryClient, Visitor, java.util.function.Consumer)}, naming what was left out. */
  public static void readAll(TopicScan scan, SchemaRegistryClient registry, Visitor each, Unreadable unreadable) {
    readAll(scan, EnumSet.allOf(ResourceKind.class), Selection.EVERYTHING, new Shelf.Decoders(registry)::read, null,
        (kind, record, value) -> each.accept(kind, record, value), unreadable);
  }

  /** A config record's value as a read keeps it; a failure to read it is a {@link SerializationException}. */
  @FunctionalInterface
  private interface ValueReader<V> {
    V read(ResourceKind kind, String topic, byte[] value);
  }

  /** As {@link Visitor}, of values as a {@link Shelf} keeps them. */
  @FunctionalInterface
  private interface Each<V> {
    void accept(ResourceKind kind, ConsumerRecord<String, V> record, V value);
  }

  /**
   * A read of what is in force: which records it may leave undecoded, and which decoded ones do
   * not stand (a record the topology rejected leaves the version before it in force).
   */
  private record InForce(Superseded superseded, Predicate<ConsumerRecord<String, ?>> rejected) {}

  /**
   * The records of the topics that {@code selection} takes, decoded, to {@code each} (or, when
   * they cannot be, to {@code unreadable}), in offset order per partition. With {@code inForce},
   * a read of what is in force, which may skip a record its key's later one supersedes; without,
   * every record (an audit's history).
   */
  private static <V> void readAll(TopicScan scan, Set<ResourceKind> wanted, Selection selection, ValueReader<V> values,
      InForce inForce, Each<V> each, Unreadable unreadable) {
    Map<String, ResourceKind> kinds = new HashMap<>();
    for (ResourceKind kind : wanted) {
      kinds.put(kind.topic().name(), kind);
    }
    Function<ConsumerRecord<byte[], byte[]>, Decoded<V>> decode = r -> {
      if (!selection.keeps(r.key())) {
        return null; // another resource's record: not even decoded, and left out
      }
      String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
      ResourceKind kind = kinds.get(r.topic());
      try {
        V value = r.value() == null ? null : values.read(kind, r.topic(), r.value());
        return new Decoded<>(kind, new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(),
            r.timestampType(), r.serializedKeySize(), r.serializedValueSize(), key, value, r.headers(),
            r.leaderEpoch()), null);
      } catch (SerializationException e) {
        TopicScan.failIfRegistryFailed(e);
        return new Decoded<>(kind, new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), key, null),
            r.topic() + "@" + r.partition() + ":" + r.offset() + " skipped: " + e.getMessage());
      }
    };
    Consumer<Decoded<V>> visit = d -> {
      if (d.problem() == null) {
        each.accept(d.kind(), d.record(), d.record().value());
      } else {
        unreadable.accept(d.kind(), d.record().key(), d.problem());
      }
    };
    Predicate<ConsumerRecord<byte[], byte[]>> only = selection.only();
    if (only == null) {
      // Decoding is most of the read: it happens in each partition's thread, the visitor in order.
      Superseded superseded = inForce == null ? null : inForce.superseded();
      scan.readPartitions(kinds.keySet(), selection.partitions(), r -> superseded != null && selection.keeps(r.key())
          && superseded.defers(r) ? null : decode.apply(r), visit);
      if (inForce != null) {
        visitDeferred(scan, kinds.keySet(), selection, inForce, decode, visit);
      }
      return;
    }
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    Set<Identity> accepted = new HashSet<>();
    scan.readPartitions(kinds.keySet(), selection.partitions(), r -> r, r -> {
      records.add(r);
      if (only.test(r)) {
        accepted.add(Identity.of(r));
      }
    });
    records.stream().filter(r -> accepted.contains(Identity.of(r))).toList().parallelStream().map(decode)
        .filter(Objects::nonNull).toList()
        .forEach(visit);
  }

  /**
   * Each deferred key's latest record, decoded side by side: it comes after every record of its
   * key visited so far. One that does not stand leaves in force a version before it, which may
   * have been deferred too: such a resource is read again, all its records in order.
   */
  private static <V> void visitDeferred(TopicScan scan, Set<String> topics, Selection selection, InForce inForce,
      Function<ConsumerRecord<byte[], byte[]>, Decoded<V>> decode, Consumer<Decoded<V>> visit) {
    List<ConsumerRecord<byte[], byte[]>> latest = inForce.superseded().latest();
    List<Decoded<V>> decoded = latest.parallelStream().map(decode).toList();
    Set<Identity> again = new HashSet<>();
    for (int i = 0; i < decoded.size(); i++) {
      Decoded<V> d = decoded.get(i);
      if (d != null && (d.problem() != null || inForce.rejected().test(d.record()))) {
        again.add(Identity.of(latest.get(i)));
      } else if (d != null) {
        visit.accept(d);
      }
    }
    if (!again.isEmpty()) {
      // up to the topics' ends as they are now: a record written since is its resource's latest
      scan.readPartitions(topics, selection.partitions(), r -> again.contains(Identity.of(r)) ? decode.apply(r) : null,
          visit);
    }
  }

  /**
   * Which records a read takes: of the partitions named, of the resources whose key {@code keys}
   * accepts (null: all), and of those any record of which {@code only} accepts (null: all).
   */
  private record Selection(KeyPartition partitions, Predicate<byte[]> keys,
      Predicate<ConsumerRecord<byte[], byte[]>> only) {
    static final Selection EVERYTHING = new Selection(KeyPartition.ALL, null, null);

    boolean keeps(byte[] key) {
      return keys == null || key != null && keys.test(key);
    }
  }

  /** A resource's records' topic and key bytes, compared without decoding the key. */
  private record Identity(String topic, KeyBytes key) {
    static Identity of(ConsumerRecord<byte[], byte[]> r) {
      return new Identity(r.topic(), KeyBytes.of(r));
    }
  }

  /** A config record decoded, or why it could not be. */
  private record Decoded<V>(ResourceKind kind, ConsumerRecord<String, V> record, String problem) {}

  /** Writes every change in one transaction: all of them become visible, or none. */
  public void write(List<Resource> changes) {
    if (changes.isEmpty()) {
      return;
    }
    Map<String, Object> props = new HashMap<>(client);
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "healthctl-apply-" + UUID.randomUUID());
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // An apply can write 100,000 records: large batches, not thousands of round trips.
    props.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20);
    props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 10);
    try (KafkaProducer<String, SpecificRecord> producer = new KafkaProducer<>(props,
        // one serializer for every kind: the subject comes from each record's topic
        new StringSerializer(), new AvroSerializer<SpecificRecord>(registry, false))) {
      producer.initTransactions();
      producer.beginTransaction();
      try {
        for (Resource change : changes) {
          producer.send(new ProducerRecord<>(change.kind().topic().name(), change.key(), change.value()));
        }
        producer.commitTransaction();
      } catch (RuntimeException e) {
        producer.abortTransaction();
        throw e;
      }
    }
  }
}
