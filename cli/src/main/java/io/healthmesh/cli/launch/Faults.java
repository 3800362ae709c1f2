package io.healthmesh.cli.launch;

import io.healthmesh.cli.kafka.TopicScan;
import io.healthmesh.internal.DemoFaults;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.TopicCreator;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The demo's failed endpoints, kept in a compacted topic of the demo's own Kafka, so that
 * {@code healthctl demo fail} in any terminal reaches the running demo, wherever its data lives.
 * The demo's simulator follows the topic as the only member of {@link #GROUP}: a demo that is not
 * running, or runs without its simulator, has no member, and {@code demo fail} says so instead
 * of writing into the void.
 */
public final class Faults implements AutoCloseable {
  static final Topic<String, DemoFaults> TOPIC =
      new Topic<>("healthmesh-demo-faults", String.class, DemoFaults.class, true);
  static final String GROUP = "healthmesh-demo-simulator";
  private static final String KEY = "faults";
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final Map<String, Object> client;
  private final SchemaRegistryClient registry;
  private final KafkaConsumer<String, DemoFaults> consumer;
  private final Thread thread;
  private volatile Set<String> failed = Set.of();
  private volatile boolean running = true;

  private Faults(Map<String, Object> client, SchemaRegistryClient registry) {
    this.client = client;
    this.registry = registry;
    Map<String, Object> props = new HashMap<>(client);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // A demo killed without a goodbye stops counting as running soon.
    props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
    props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
    this.consumer = new KafkaConsumer<>(props, TOPIC.keySerde(registry).deserializer(),
        TOPIC.valueSerde(registry).deserializer());
    this.thread = new Thread(this::follow, "demo-faults");
    thread.setDaemon(true);
  }

  /** The demo's side: creates the topic if needed and follows it. */
  static Faults follow(String bootstrap, SchemaRegistryClient registry) throws InterruptedException {
    Map<String, Object> client = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(client)) {
      new TopicCreator(1, (short) 1).createMissing(admin, List.of(TOPIC));
    }
    Faults faults = new Faults(client, registry);
    faults.consumer.subscribe(List.of(TOPIC.name()));
    faults.thread.start();
    return faults;
  }

  /**
   * Whether the prober in {@code region} sees the endpoint fail: a fault names {@code
   * service/endpoint} or a whole {@code service}, for every prober, or followed by {@link #FROM}
   * and a region, for that region's prober alone (it is cut off, R-PQ-1).
   */
  public boolean failing(String region, String service, String endpoint) {
    return failing(failed, region, service, endpoint);
  }

  static boolean failing(Set<String> now, String region, String service, String endpoint) {
    if (now.isEmpty()) {
      return false;
    }
    String one = service + "/" + endpoint;
    String from = FROM + region;
    return now.contains(service) || now.contains(one) || now.contains(service + from) || now.contains(one + from);
  }

  /** What a fault seen by one region's prober alone ends with: {@code orders-use1 from europe-west1}. */
  public static final String FROM = " from ";

  /** What fails now, as the demo sees it. */
  public Set<String> read() {
    return failed;
  }

  public void fail(String target) {
    awaitSeen(change(client, registry, set -> set.add(target)));
  }

  public void heal(String target) {
    awaitSeen(change(client, registry, set -> {
      if (target.equals("all")) {
        set.clear();
      } else {
        set.remove(target);
      }
    }));
  }

  private void awaitSeen(Set<String> expected) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!failed.equals(expected) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void follow() {
    try {
      while (running) {
        for (ConsumerRecord<String, DemoFaults> r : consumer.poll(Duration.ofMillis(500))) {
          if (KEY.equals(r.key())) {
            failed = r.value() == null ? Set.of() : Set.copyOf(r.value().getTargets());
          }
        }
      }
    } catch (WakeupException e) {
      // closing
    } finally {
      consumer.close(Duration.ofSeconds(2)); // leaves the group: the demo no longer counts as running
    }
  }

  /**
   * The other terminal's side: checks that a demo with its simulator runs at {@code client}'s
   * Kafka, applies {@code edit} to what fails and writes it; returns the new set.
   *
   * @throws IllegalStateException naming what is missing when no such demo runs
   */
  static Set<String> change(Map<String, Object> client, SchemaRegistryClient registry, Consumer<Set<String>> edit) {
    String where = String.valueOf(client.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
    Map<String, Object> adminProps = new HashMap<>(client);
    adminProps.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
    adminProps.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    try (Admin admin = Admin.create(adminProps)) {
      admin.describeTopics(List.of(TOPIC.name())).allTopicNames().get(5, TimeUnit.SECONDS);
      ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(GROUP)).all()
          .get(5, TimeUnit.SECONDS).get(GROUP);
      if (group == null || group.members().isEmpty()) {
        throw new IllegalStateException("the demo at " + where + " is not running, or runs with --no-simulator"
            + " (then publish failing probes yourself: healthctl probe publish --failure ...)");
      }
    } catch (TimeoutException e) {
      throw noKafka(where);
    } catch (ExecutionException e) {
      // The admin client's own timeout and the wait above are both 5 s: either may say it first.
      if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
        throw noKafka(where);
      }
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        throw new IllegalStateException("the Kafka at " + where + " is not a healthmesh demo's (no topic "
            + TOPIC.name() + ")");
      }
      throw new IllegalStateException("cannot reach the demo at " + where + ": " + e.getCause().getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    Set<String> next = new TreeSet<>(latest(client, registry));
    edit.accept(next);
    Map<String, Object> props = new HashMap<>(client);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, DemoFaults> producer = new KafkaProducer<>(props, TOPIC.keySerde(registry).serializer(),
        TOPIC.valueSerde(registry).serializer())) {
      producer.send(new ProducerRecord<>(TOPIC.name(), KEY, new DemoFaults(List.copyOf(next)))).get(10, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("could not tell the demo at " + where + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    return next;
  }

  private static IllegalStateException noKafka(String where) {
    return new IllegalStateException("no Kafka answers at " + where + ": start the demo (./healthctl demo),"
        + " or pass --bootstrap-servers where it runs (demo --kafka-port)");
  }

  private static Set<String> latest(Map<String, Object> client, SchemaRegistryClient registry) {
    DemoFaults latest;
    try (TopicScan scan = new TopicScan(client, false)) {
      latest = scan.latest(TOPIC.name(), TOPIC.keySerde(registry).deserializer(), TOPIC.valueSerde(registry)
          .deserializer(), w -> { }).get(KEY);
    }
    return latest == null ? new TreeSet<>() : new TreeSet<>(latest.getTargets());
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
