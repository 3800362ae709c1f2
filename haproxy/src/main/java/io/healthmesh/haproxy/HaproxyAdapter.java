package io.healthmesh.haproxy;

import io.healthmesh.events.ConsumerFailover;
import io.healthmesh.schemas.AvroDeserializer;
import io.healthmesh.schemas.FollowerThreads;
import io.healthmesh.schemas.KafkaAccess;
import io.healthmesh.schemas.RegistryUnavailableException;
import io.healthmesh.schemas.RetryingRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives a running HAProxy with composite health's failover decisions (R-CH-8): follows
 * {@code consumer-failover} from the beginning (no consumer group; run one next to each HAProxy)
 * and brings the backend named after each consumer to its decision through the runtime API, at
 * once on a new decision and every interval anyway, so that an HAProxy that restarted is set
 * again (R-HAP-2). Consumers without a backend in this HAProxy are not its business.
 */
public final class HaproxyAdapter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HaproxyAdapter.class);

  private final HaproxySettings settings;
  private final Map<String, Object> consumerProps;
  private final AvroDeserializer<ConsumerFailover> decisions;
  private final RuntimeApi api;
  private final Reconciler reconciler;
  private final Map<String, ConsumerFailover> latest = new TreeMap<>();
  private final Thread thread;
  private final Counter commandsOk;
  private final Counter commandsFailed;
  private final Timer reconcile;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile boolean running = true;
  private volatile boolean caughtUp;
  private volatile String failure;
  private volatile boolean reachable;
  private volatile List<String> problems = List.of();
  private volatile int managed;
  private String haproxyProcess = "";

  private HaproxyAdapter(HaproxySettings settings, SchemaRegistryClient direct, MeterRegistry meters) {
    this.settings = settings;
    this.consumerProps = FollowerThreads.consumerProperties(settings.kafkaProperties());
    this.decisions = new AvroDeserializer<>(new RetryingRegistryClient(direct, null).bindTo(meters),
        ConsumerFailover.class);
    this.api = new RuntimeApi(settings.runtimeApi(), settings.timeout());
    this.reconciler = new Reconciler(settings.weight());
    this.commandsOk = meters.counter("healthmesh.haproxy.commands", "result", "ok");
    this.commandsFailed = meters.counter("healthmesh.haproxy.commands", "result", "failed");
    this.reconcile = Timer.builder("healthmesh.haproxy.reconcile").description("one pass over every managed backend")
        .register(meters);
    meters.gauge("healthmesh.haproxy.ready", this, a -> a.ready() ? 1 : 0);
    meters.gauge("healthmesh.haproxy.reachable", this, a -> a.reachable ? 1 : 0);
    meters.gauge("healthmesh.haproxy.backends.managed", this, a -> a.managed);
    meters.gauge("healthmesh.haproxy.servers.overridden", reconciler, Reconciler::overridden);
    meters.gauge("healthmesh.haproxy.problems", this, a -> a.problems.size());
    this.thread = new Thread(this::run, "haproxy-adapter");
    thread.setDaemon(true);
  }

  public static HaproxyAdapter start(HaproxySettings settings, SchemaRegistryClient registry, MeterRegistry meters) {
    HaproxyAdapter adapter = new HaproxyAdapter(settings, registry, meters);
    adapter.thread.start();
    return adapter;
  }

  /** What an adapter does in Kafka: reads the failover decisions whole, without a consumer group. */
  public static KafkaAccess kafkaAccess() {
    return KafkaAccess.of("haproxy").reading(List.of(Topics.CONSUMER_FAILOVER.name()));
  }

  /** Ready: every decision in the topic was read and HAProxy answered the last pass. */
  public boolean ready() {
    return caughtUp && reachable;
  }

  /** Why the adapter is not ready (the broker's refusal, HAProxy away), or null when it is. */
  public String notReady() {
    if (ready()) {
      return null;
    }
    if (!caughtUp) {
      return FollowerThreads.notReadWhole("the failover decisions", failure);
    }
    return "HAProxy's runtime API at " + settings.runtimeApi() + " did not answer the last pass";
  }

  /** What is wrong now: backends' missing servers, commands HAProxy refused. */
  public List<String> problems() {
    return problems;
  }

  private void run() {
    while (running) {
      try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(),
          new ByteArrayDeserializer())) {
        consumer = c;
        List<TopicPartition> partitions = c.partitionsFor(Topics.CONSUMER_FAILOVER.name(), Duration.ofSeconds(30))
            .stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        c.assign(partitions);
        c.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = c.endOffsets(partitions);
        long nextPass = 0;
        while (running) {
          boolean changed = false;
          for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
            changed |= take(r);
          }
          failure = null;
          if (!caughtUp) {
            caughtUp = end.entrySet().stream().allMatch(e -> c.position(e.getKey()) >= e.getValue());
            if (!caughtUp) {
              continue;
            }
            changed = true;
          }
          if (changed || System.nanoTime() >= nextPass) {
            reconcile.record(this::pass);
            nextPass = System.nanoTime() + settings.interval().toNanos();
          }
        }
      } catch (WakeupException e) {
        return;
      } catch (RuntimeException e) {
        failure = FollowerThreads.failed(e, kafkaAccess(), consumerProps, LOG);
        running &= FollowerThreads.pause(Duration.ofSeconds(1));
      }
    }
  }

  private boolean take(ConsumerRecord<byte[], byte[]> r) {
    String key = r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
    try {
      if (r.value() == null) {
        return latest.remove(key) != null;
      }
      latest.put(key, decisions.deserialize(r.topic(), r.value()));
      return true;
    } catch (RegistryUnavailableException e) {
      throw e;
    } catch (RuntimeException e) {
      LOG.warn("left out {}-{}@{}: {}", r.topic(), r.partition(), r.offset(), e.toString());
      return false;
    }
  }

  /** One pass: notice a restarted HAProxy, then bring every backend it has to its consumer's decision. */
  private void pass() {
    List<String> found = new ArrayList<>();
    try {
      String process = process(api.run("show info"));
      if (!process.equals(haproxyProcess)) {
        if (!haproxyProcess.isEmpty()) {
          LOG.info("HAProxy at {} restarted ({}); setting every managed server again (R-HAP-2)", api.address(), process);
        }
        reconciler.restarted();
        haproxyProcess = process;
      }
      // One command for every backend: a pass costs the same whatever the number of consumers.
      Map<String, Map<String, ServerState>> servers = ServerState.parse(api.run("show servers state"));
      int backends = 0;
      for (Map.Entry<String, ConsumerFailover> e : latest.entrySet()) {
        Map<String, ServerState> backend = servers.get(e.getKey());
        if (backend == null) {
          continue; // not a consumer this HAProxy serves
        }
        backends++;
        for (String command : reconciler.commands(e.getKey(), reconciler.desired(e.getValue()), backend, found,
            LOG::warn)) {
          String reply = api.run(command).trim();
          if (reply.isEmpty()) {
            commandsOk.increment();
            LOG.info("{} ({})", command, api.address());
          } else {
            commandsFailed.increment();
            found.add("'" + command + "': " + reply);
          }
        }
      }
      managed = backends;
      reachable = true;
    } catch (IOException e) {
      if (reachable) {
        LOG.warn("HAProxy's runtime API at {} does not answer: {}", api.address(), e.toString());
      }
      reachable = false;
      found.add("HAProxy's runtime API at " + api.address() + " does not answer: " + e.getMessage());
    }
    if (!found.equals(problems)) {
      found.forEach(p -> LOG.warn("{}", p));
    }
    problems = List.copyOf(found);
  }

  /** HAProxy's process as {@code pid@start}: another value means it restarted with its configuration's states. */
  static String process(String info) {
    String pid = "";
    String start = "";
    for (String line : info.split("\n")) {
      if (line.startsWith("Pid: ")) {
        pid = line.substring(5).trim();
      } else if (line.startsWith("Start_time_sec: ")) {
        start = line.substring(16).trim();
      }
    }
    return pid + "@" + start;
  }

  @Override
  public void close() {
    running = false;
    FollowerThreads.stop(thread, consumer);
  }
}
