package io.healthmesh.edge.follow;

import io.healthmesh.edge.routing.PlanBuilder;
import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.events.ConfigInForce;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.schemas.AvroDeserializer;
import io.healthmesh.schemas.FollowerThreads;
import io.healthmesh.schemas.KafkaAccess;
import io.healthmesh.schemas.RegistryUnavailableException;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the zones, record sets, forwarding rules and health-state from the beginning (no
 * consumer group, no offsets of its own), and publishes a new snapshot once it has drained what
 * the topics hold, or once the oldest change not yet served has waited {@code maxDelay}: changes
 * that arrive together go into one snapshot, and none waits longer than that. Snapshots are at
 * least {@code minInterval} apart, so that a topology committing often does not make the edge
 * build (and its answer caches start over) many times a second. Ready once the
 * first snapshot built from a whole read is in force. When Kafka goes away it keeps retrying;
 * the last snapshot keeps answering and its age tells how stale it is.
 */
public final class TopicFollower implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TopicFollower.class);
  private static final Set<EntityKind> DNS_TARGETS = Set.of(EntityKind.FORWARDING_RULE, EntityKind.EXTERNAL_ENDPOINT);
  /** What an edge reads, whole, from the beginning (no consumer group). */
  public static final List<String> TOPICS = List.of(Topics.MANAGED_ZONES.name(), Topics.RESOURCE_RECORD_SETS.name(),
      Topics.FORWARDING_RULES.name(), Topics.RESPONSE_POLICIES.name(), Topics.RESPONSE_POLICY_RULES.name(),
      Topics.SERVER_POLICIES.name(), Topics.HEALTH_STATE.name(), Topics.CONFIG_IN_FORCE.name());

  private final Map<String, Object> consumerProps;
  private final KafkaAccess access;
  private EdgeState state = new EdgeState();
  private final Consumer<Snapshot> publish;
  private final AvroDeserializer<EntityKey> keys;
  private final AvroDeserializer<HealthState> states;
  private final AvroDeserializer<ConfigInForce> inForce;
  /** The configuration topics, each bound to its reader and to what in the state takes it. */
  private final Map<String, ConfigIntake<?>> intakes = new HashMap<>();
  private final LedgerWriter ledgerWriter;
  private InForceLedger ledger;
  private final Thread thread;
  private final long maxDelayNanos;
  private final long minIntervalNanos;
  private final ChangeLatency latency;
  private final Timer build;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile long lagRecords;
  private volatile long caughtUpMillis = System.currentTimeMillis();
  private volatile boolean running = true;
  private volatile String failure;
  private volatile boolean ready;
  private final Freshness freshness = new Freshness();
  private final AtomicLong skipped = new AtomicLong();
  private volatile List<String> followed = List.of();
  /** Rejections by the states that earlier reads built, so that the count only grows. */
  private final AtomicLong rejectedEarlier = new AtomicLong();

  /** @param access what the edge needs in Kafka, for the message when the broker refuses it */
  public TopicFollower(Map<String, Object> kafkaProps, SchemaRegistryClient registry, SnapshotPacing pacing,
      MeterRegistry meters, KafkaAccess access, Consumer<Snapshot> publish) {
    this.access = access;
    // A snapshot waits for the drain of a burst anyway.
    this.consumerProps = FollowerThreads.consumerProperties(kafkaProps);
    this.publish = publish;
    this.keys = new AvroDeserializer<>(registry, EntityKey.class);
    this.states = new AvroDeserializer<>(registry, HealthState.class);
    this.inForce = new AvroDeserializer<>(registry, ConfigInForce.class);
    intake(Topics.MANAGED_ZONES, registry, EdgeState::zone);
    intake(Topics.RESOURCE_RECORD_SETS, registry, EdgeState::recordSet);
    intake(Topics.FORWARDING_RULES, registry, EdgeState::forwardingRule);
    intake(Topics.RESPONSE_POLICIES, registry, EdgeState::responsePolicy);
    intake(Topics.RESPONSE_POLICY_RULES, registry, EdgeState::responsePolicyRule);
    intake(Topics.SERVER_POLICIES, registry, EdgeState::serverPolicy);
    this.ledgerWriter = new LedgerWriter(kafkaProps, registry, meters);
    this.thread = new Thread(this::follow, "edge-topic-follower");
    thread.setDaemon(true);
    this.maxDelayNanos = pacing.maxDelay().toNanos();
    this.minIntervalNanos = pacing.minInterval().toNanos();
    this.latency = new ChangeLatency(meters);
    this.build = Timer.builder("healthmesh.edge.snapshot.build").description("time to bring the snapshot up to date")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(10_000)).register(meters);
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    FunctionCounter.builder("healthmesh.edge.follower.cpu", thread,
        t -> t.isAlive() ? Math.max(0, threads.getThreadCpuTime(t.getId())) / 1e9 : 0).baseUnit("seconds")
        .description("CPU time of the thread that follows the topics and builds snapshots").register(meters);
  }

  public TopicFollower start() {
    thread.start();
    return this;
  }

  public boolean ready() {
    return ready;
  }

  /** Why the last read of the topics failed (the broker away, an ACL missing); null after a good one. */
  public String failure() {
    return failure;
  }

  /** {@code topic-partition} -> end offset when the broker was last asked (about every second). */
  public Map<String, Long> endOffsets() {
    return freshness.endOffsets();
  }

  /** Every partition followed, as {@code topic-partition}; empty until the topics were found. */
  public List<String> partitions() {
    return followed;
  }

  /** Milliseconds since the edge last knew it served everything the topics held (see {@link Freshness}). */
  public long stalenessMillis() {
    return freshness.stalenessMillis();
  }

  /**
   * Records in the topics that the snapshot in force does not yet include: read but not yet
   * served, plus those not yet read (as of the last poll).
   */
  public long lagRecords() {
    return lagRecords;
  }

  /** Milliseconds since the snapshot in force last held everything the topics did; 0 while it does. */
  public long lagMillis() {
    return lagRecords == 0 ? 0 : System.currentTimeMillis() - caughtUpMillis;
  }

  /** Configuration records that broke a rule and were not taken, their previous version staying. */
  public long rejected() {
    return rejectedEarlier.get() + state.rejected();
  }

  /** Records that could not be read and were left out. */
  /** See {@link EdgeState#unknownCountedAs}. */
  public long unknownCountedAs(HealthStatus as) {
    return state.unknownCountedAs(as);
  }

  public long skipped() {
    return skipped.get();
  }

  private void follow() {
    while (running) {
      try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(),
          new ByteArrayDeserializer())) {
        consumer = c;
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : TOPICS) {
          c.partitionsFor(topic, Duration.ofSeconds(30)).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        }
        c.assign(partitions);
        followed = partitions.stream().map(tp -> tp.topic() + "-" + tp.partition()).toList();
        c.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = c.endOffsets(partitions);
        // Every read starts from nothing, so that a key whose tombstone was compacted away while
        // this edge was cut off does not linger; the last snapshot answers until the read is whole.
        rejectedEarlier.addAndGet(state.rejected());
        state = new EdgeState(state.version());
        boolean ledgerFollowed = partitions.stream().anyMatch(tp -> tp.topic().equals(Topics.CONFIG_IN_FORCE.name()));
        ledger = new InForceLedger(ledgerFollowed ? ledgerWriter::write : (k, v) -> {});
        boolean whole = false;
        boolean force = false;
        long unserved = 0;
        long waitingSince = 0;
        long lastSnapshot = System.nanoTime() - minIntervalNanos;
        Duration poll = Duration.ofMillis(100);
        while (running) {
          ConsumerRecords<byte[], byte[]> records = c.poll(poll);
          failure = null;
          poll = Duration.ofMillis(100);
          for (ConsumerRecord<byte[], byte[]> r : records) {
            if (apply(r) && whole) {
              boolean health = r.topic().equals(Topics.HEALTH_STATE.name());
              latency.pending(health, r.timestamp(), health ? publishedAt(r) : -1);
            }
            state.offset(r.topic() + "-" + r.partition(), r.offset());
          }
          unserved += records.count();
          state.expire(); // R-OP-2: a last known state too old to count is a change without a record
          if (!whole && caughtUp(c, end)) {
            whole = true;
            force = true;
            ledger.complete();
          }
          boolean served = whole && !force && !state.changed();
          if (served) {
            unserved = 0; // what was read changes nothing that is served
          }
          freshness.check(c, partitions, served);
          long unread = unread(c, partitions);
          lag(unserved + unread);
          if (!whole || !force && !state.changed()) {
            continue;
          }
          long now = System.nanoTime();
          if (waitingSince == 0) {
            waitingSince = now;
          }
          // Until the read is whole a snapshot would answer from part of the topics (or, on a
          // re-read, from older versions); after it, wait for the backlog to drain, up to maxDelay.
          long sinceLast = now - lastSnapshot;
          if (ready && sinceLast < minIntervalNanos) {
            poll = Duration.ofNanos(Math.max(1_000_000, minIntervalNanos - sinceLast));
            continue;
          }
          if (unread == 0 || records.isEmpty() || now - waitingSince >= maxDelayNanos) {
            Snapshot snapshot = build.record(() -> state.snapshot(true));
            publish.accept(snapshot);
            latency.served(System.currentTimeMillis());
            if (!ready) {
              LOG.info("edge snapshot ready after reading {} partitions", partitions.size());
            }
            ready = true;
            force = false;
            waitingSince = 0;
            lastSnapshot = System.nanoTime();
            unserved = 0;
            lag(unread);
          }
        }
      } catch (WakeupException e) {
        return;
      } catch (RuntimeException e) {
        failure = FollowerThreads.failed(e, access, consumerProps, LOG);
        sleep();
      }
    }
  }

  /** When the topology published a health-state record, from its header; -1 when it does not say. */
  private static long publishedAt(ConsumerRecord<byte[], byte[]> r) {
    Header h = r.headers().lastHeader(Topics.PUBLISHED_AT_HEADER);
    if (h == null) {
      return -1;
    }
    try {
      return Long.parseLong(new String(h.value(), StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private void lag(long records) {
    lagRecords = records;
    if (records == 0) {
      caughtUpMillis = System.currentTimeMillis();
    }
  }

  /** Records not yet read, as of the last fetch; a partition whose lag is not known yet counts as none. */
  private static long unread(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> partitions) {
    long unread = 0;
    for (TopicPartition tp : partitions) {
      unread += c.currentLag(tp).orElse(0);
    }
    return unread;
  }

  private static boolean caughtUp(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (c.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private boolean apply(ConsumerRecord<byte[], byte[]> r) {
    try {
      String key = r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
      if (r.topic().equals(Topics.CONFIG_IN_FORCE.name())) {
        InForceLedger.Restore restore = ledger.read(key, r.value() == null ? null : inForce.deserialize(r.topic(), r.value()));
        return restore != null && configure(restore.topic(), restore.key(), restore.value(), restore.offset()) == null;
      }
      ConfigIntake<?> intake = intakes.get(r.topic());
      if (intake == null) {
        return health(r);
      }
      EdgeState.Rejection rejection = configure(r.topic(), key, r.value(), r.offset());
      if (rejection == null) {
        ledger.accepted(r.topic(), key, r.partition(), r.offset());
        return true;
      }
      byte[] kept = rejection.inForce() == null ? null : intake.encode(r.topic(), rejection.inForce());
      InForceLedger.Restore restore = ledger.rejected(r.topic(), key, r.partition(), r.offset(), rejection.problems(),
          kept, rejection.inForceOffset());
      return restore != null && configure(restore.topic(), restore.key(), restore.value(), restore.offset()) == null;
    } catch (RegistryUnavailableException e) {
      throw e; // only when closing: the registry client waits for the registry as long as it takes
    } catch (RuntimeException e) {
      skipped.incrementAndGet();
      LOG.warn("left out {}-{}@{}: {}", r.topic(), r.partition(), r.offset(), e.toString());
      return false;
    }
  }

  /** Hands a configuration record's value to the state; null when it was taken. */
  private EdgeState.Rejection configure(String topic, String key, byte[] value, long offset) {
    return intakes.get(topic).take(state, topic, key, value, offset);
  }

  private <T extends SpecificRecord> void intake(Topic<String, T> topic,
      SchemaRegistryClient registry, ConfigIntake.Take<T> take) {
    intakes.put(topic.name(), new ConfigIntake<>(topic, registry, take));
  }

  private boolean health(ConsumerRecord<byte[], byte[]> r) {
    EntityKey key = keys.deserialize(r.topic(), r.key());
    if (key == null || !DNS_TARGETS.contains(key.getKind())) {
      return false;
    }
    HealthState value = r.value() == null ? null : states.deserialize(r.topic(), r.value());
    if (value == null) {
      return state.health(key.getKind(), key.getName(), null);
    }
    return state.health(key.getKind(), key.getName(), value.getStatus(), value.getLastKnownStatus() == null ? null
        : new PlanBuilder.LastKnown(value.getLastKnownStatus(), value.getSince().toEpochMilli()));
  }

  private void sleep() {
    running &= FollowerThreads.pause(Duration.ofSeconds(1));
  }

  @Override
  public void close() {
    running = false;
    ledgerWriter.close();
    FollowerThreads.stop(thread, consumer);
  }
}
