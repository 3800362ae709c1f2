package io.healthmesh.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code _schemas} topic: one partition, compacted, records in Confluent's JSON layout. A
 * thread tails it (read_committed) into the {@link SchemaStore}.
 *
 * <p>Writes go through a transactional producer whose {@code transactional.id} every instance of
 * one registry shares. Initialising it fences the previous writer and settles its open
 * transaction; a writer that was fenced after it read the log cannot commit. So a decision made
 * after catching up and committed under the same epoch saw every earlier record: two instances
 * never hand out one id twice or two ids for one schema.
 */
final class SchemaLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaLog.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RegistrySettings settings;
  private final SchemaStore store;
  private final TopicPartition partition;
  private final Admin admin;
  static final String TRANSACTIONAL_ID_PREFIX = "healthmesh-schema-registry-";
  private final Thread tail;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Object progress = new Object();
  private volatile long position;
  private volatile boolean running = true;
  private volatile Throwable tailFailure;
  private KafkaProducer<byte[], byte[]> producer;

  SchemaLog(RegistrySettings settings, SchemaStore store) {
    this.settings = settings;
    this.store = store;
    this.partition = new TopicPartition(settings.topic(), 0);
    this.admin = Admin.create(settings.kafkaClientProperties());
    createTopicIfMissing();
    this.consumer = new KafkaConsumer<>(consumerProperties(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.tail = new Thread(this::tailLoop, "schema-log-tail");
    this.tail.setDaemon(true);
  }

  void start() {
    consumer.assign(List.of(partition));
    consumer.seekToBeginning(List.of(partition));
    tail.start();
    catchUp();
  }

  /** Waits until every record committed so far is in the store. */
  void catchUp() {
    long end = committedEnd();
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    synchronized (progress) {
      while (position < end) {
        if (tailFailure != null) {
          throw RegistryError.storeError("reading " + settings.topic() + " failed: " + tailFailure, tailFailure);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw RegistryError.storeTimeout("reading " + settings.topic() + " up to offset " + end
              + " (at " + position + ")");
        }
        try {
          progress.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw RegistryError.storeTimeout("interrupted");
        }
      }
    }
  }

  /**
   * Runs {@code decide} on a store that holds every committed record, and commits the records it
   * returns in one transaction. Retried from the start when another instance took over meanwhile.
   */
  /** Bytes of a produce request that are not the record's key and value: batch and record headers. */
  private static final int RECORD_HEADROOM = 4096;

  synchronized <T> T write(Decision<T> decide) {
    RuntimeException last = null;
    for (int attempt = 1; attempt <= 5; attempt++) {
      boolean began = false;
      try {
        ensureProducer();
        catchUp();
        Decision.Outcome<T> outcome = decide.decide();
        if (outcome.records().isEmpty()) {
          return outcome.result();
        }
        checkSize(outcome.records());
        producer.beginTransaction();
        began = true;
        for (Map.Entry<byte[], byte[]> r : outcome.records()) {
          producer.send(new ProducerRecord<>(settings.topic(), 0, r.getKey(), r.getValue()));
        }
        producer.commitTransaction();
        catchUp();
        return outcome.result();
      } catch (RegistryError e) {
        if (began) {
          abortQuietly();
        }
        throw e;
      } catch (RuntimeException e) {
        // Fenced by another instance, or the broker hiccuped: start over with a new epoch.
        LOG.info("write to {} not committed (attempt {}): {}", settings.topic(), attempt, e.toString());
        last = e;
        closeProducer();
      }
    }
    throw RegistryError.storeError("could not write to " + settings.topic() + ": " + last, last);
  }

  /**
   * A record the producer would refuse as too large would also leave its transaction in an error
   * state, and every retry would fail the same way: say so at once, as the client's mistake.
   */
  private void checkSize(List<Map.Entry<byte[], byte[]>> records) {
    long limit = maxRecordBytes();
    for (Map.Entry<byte[], byte[]> r : records) {
      long size = r.getKey().length + (long) r.getValue().length;
      if (size > limit) {
        throw RegistryError.invalidSchema("the schema takes " + size + " bytes in " + settings.topic()
            + ", more than the " + limit + " a record may have (the producer's max.request.size less headroom)");
      }
    }
  }

  private long maxRecordBytes() {
    Object configured = settings.kafkaClientProperties().get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
    long max = configured == null ? 1_048_576 : Long.parseLong(configured.toString().trim());
    return max - RECORD_HEADROOM;
  }

  /** What a write decided: a result for the caller and the records that make it true. */
  interface Decision<T> {
    Outcome<T> decide();

    record Outcome<T>(T result, List<Map.Entry<byte[], byte[]>> records) {}
  }

  static Map.Entry<byte[], byte[]> schemaRecord(SchemaStore.Version v) {
    ObjectNode key = JSON.createObjectNode().put("keytype", "SCHEMA").put("subject", v.subject())
        .put("version", v.version()).put("magic", 1);
    ObjectNode value = JSON.createObjectNode().put("subject", v.subject()).put("version", v.version())
        .put("id", v.id()).put("schema", v.schema()).put("deleted", false);
    return Map.entry(bytes(key), bytes(value));
  }

  static Map.Entry<byte[], byte[]> configRecord(String subject, CompatibilityLevel level) {
    ObjectNode key = JSON.createObjectNode().put("keytype", "CONFIG").put("subject", subject).put("magic", 0);
    byte[] value = level == null ? null : bytes(JSON.createObjectNode().put("compatibilityLevel", level.name()));
    return new AbstractMap.SimpleImmutableEntry<>(bytes(key), value);
  }

  private void apply(ConsumerRecord<byte[], byte[]> record) {
    try {
      JsonNode key = JSON.readTree(record.key());
      String type = key.path("keytype").asText();
      if ("SCHEMA".equals(type) && record.value() != null) {
        JsonNode v = JSON.readTree(record.value());
        if (v.path("deleted").asBoolean(false)) {
          return;
        }
        SchemaStore.Version version = new SchemaStore.Version(v.path("subject").asText(),
            v.path("version").asInt(), v.path("id").asInt(), Schemas.canonical(v.path("schema").asText()));
        if (!store.applySchema(version)) {
          LOG.warn("ignored conflicting {} record at offset {}: {}", settings.topic(), record.offset(), version);
        }
      } else if ("CONFIG".equals(type)) {
        String subject = key.hasNonNull("subject") ? key.get("subject").asText() : null;
        CompatibilityLevel level = record.value() == null ? null
            : CompatibilityLevel.parse(JSON.readTree(record.value()).path("compatibilityLevel").asText());
        store.applyConfig(subject, level);
      }
    } catch (IOException | RuntimeException e) {
      // One unreadable record must not stop the registry; it is skipped and reported.
      LOG.warn("skipped unreadable {} record at offset {}: {}", settings.topic(), record.offset(), e.toString());
    }
  }

  private void tailLoop() {
    try {
      while (running) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(50))) {
          if (record.key() != null) {
            apply(record);
          }
        }
        long next = consumer.position(partition);
        synchronized (progress) {
          position = next;
          progress.notifyAll();
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.error("tailing {} failed", settings.topic(), e);
      tailFailure = e;
      synchronized (progress) {
        progress.notifyAll();
      }
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  /**
   * The offset up to which every transaction is settled. A writer fenced a moment ago may still
   * have its commit markers in flight (the new epoch is granted before they land), so the last
   * stable offset alone could hide a record that is already decided: wait until it reaches the
   * high watermark.
   */
  private long committedEnd() {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    try {
      while (true) {
        try {
          long stable = endOffset(IsolationLevel.READ_COMMITTED);
          if (stable >= endOffset(IsolationLevel.READ_UNCOMMITTED)) {
            return stable;
          }
          if (System.nanoTime() > deadline) {
            throw RegistryError.storeTimeout("a transaction on " + settings.topic() + " stayed open past offset " + stable);
          }
        } catch (ExecutionException e) {
          // A topic created a moment ago may not be in every metadata cache yet.
          if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
            throw e;
          }
        }
        Thread.sleep(5);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw RegistryError.storeError("cannot read the end offset of " + settings.topic() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw RegistryError.storeTimeout("interrupted");
    }
  }

  private long endOffset(IsolationLevel isolation)
      throws ExecutionException, TimeoutException, InterruptedException {
    return admin.listOffsets(Map.of(partition, OffsetSpec.latest()), new ListOffsetsOptions(isolation))
        .partitionResult(partition).get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS).offset();
  }

  private void ensureProducer() {
    if (producer == null) {
      Map<String, Object> props = new HashMap<>(settings.kafkaClientProperties());
      props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TRANSACTIONAL_ID_PREFIX + settings.topic());
      props.put(ProducerConfig.ACKS_CONFIG, "all");
      props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
      props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) settings.timeout().toMillis());
      producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
      producer.initTransactions();
    }
  }

  private void abortQuietly() {
    if (producer == null) {
      return;
    }
    try {
      producer.abortTransaction();
    } catch (RuntimeException e) {
      closeProducer();
    }
  }

  private void closeProducer() {
    if (producer != null) {
      try {
        producer.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        LOG.debug("closing fenced producer", e);
      }
      producer = null;
    }
  }

  private Map<String, Object> consumerProperties() {
    Map<String, Object> props = new HashMap<>(settings.kafkaClientProperties());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // A registration waits for the tail to pass its own commit marker: keep that wait short.
    props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
    return props;
  }

  private void createTopicIfMissing() {
    NewTopic topic = new NewTopic(settings.topic(), 1, settings.replicationFactor())
        .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
    try {
      admin.createTopics(List.of(topic)).all().get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
      LOG.info("created topic {}", settings.topic());
      awaitLeader();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create " + settings.topic() + ": " + e.getCause(), e);
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka at " + settings.bootstrapServers() + " did not answer in "
          + settings.timeout(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** A new topic's leader takes a moment to be known; asking for offsets before that logs errors. */
  private void awaitLeader() throws InterruptedException {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    while (System.nanoTime() < deadline) {
      try {
        var description = admin.describeTopics(List.of(settings.topic())).allTopicNames()
            .get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS).get(settings.topic());
        if (description.partitions().get(0).leader() != null) {
          return;
        }
      } catch (ExecutionException | TimeoutException e) {
        // not visible yet
      }
      Thread.sleep(20);
    }
  }

  Optional<Throwable> failure() {
    return Optional.ofNullable(tailFailure);
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      tail.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      closeProducer();
    }
    admin.close(Duration.ofSeconds(5));
  }

  private static byte[] bytes(JsonNode node) {
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }
}
