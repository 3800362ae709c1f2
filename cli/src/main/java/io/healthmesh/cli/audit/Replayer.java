package io.healthmesh.cli.audit;

import io.healthmesh.cli.config.Resource;
import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.cli.kafka.TopicScan;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.HealthTopology;
import io.healthmesh.streams.StreamsSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * Re-runs the health topology offline (in a {@code TopologyTestDriver}, never against the live
 * topics) over the recorded configuration and probe results, optionally with aggregation
 * policies, composite health checks or backend services replaced, and returns the transitions it produces. Decisions use event time only
 * (R-AUD-2), so an unchanged replay reproduces what was published.
 */
public final class Replayer {
  private final TopicScan scan;
  private final SchemaRegistryClient registry;

  public Replayer(TopicScan scan, SchemaRegistryClient live) {
    this.scan = scan;
    this.registry = new OverlayRegistry(live);
  }

  /** A recorded input record, as bytes. */
  private record Input(String topic, byte[] key, byte[] value, long timestamp, int order) {}

  /** What the replay read and produced. */
  public record Result(long configRecords, long probeRecords, List<HealthTransition> transitions, double seconds) {}

  /**
   * @param from probe results from this time (null: the beginning); all configuration is read, as
   *     it is state
   * @param policies aggregation policies, composite health checks (R-OP-4) and backend services
   *     (their health checks, R-OP-3) that replace the recorded ones of the same name for the whole
   *     replay
   */
  public Result replay(Instant from, Instant to, List<Resource> policies) throws Exception {
    long started = System.nanoTime();
    List<Input> inputs = new ArrayList<>();
    Set<String> replaced = new HashSet<>();
    policies.forEach(p -> replaced.add(p.kind().topic().name() + "/" + p.key()));
    long[] counts = new long[2];
    List<String> configTopics = Arrays.stream(ResourceKind.values()).map(k -> k.topic().name()).toList();
    scan.readAll(configTopics, null, r -> {
      if (replaced.contains(r.topic() + "/" + key(r))) {
        return;
      }
      if (to == null || r.timestamp() <= to.toEpochMilli()) {
        inputs.add(new Input(r.topic(), r.key(), r.value(), r.timestamp(), 0));
        counts[0]++;
      }
    });
    for (Resource p : policies) {
      String topic = p.kind().topic().name();
      inputs.add(new Input(topic, p.key().getBytes(StandardCharsets.UTF_8),
          p.kind().topic().valueSerde(registry).serializer().serialize(topic, (SpecificRecord) p.value()),
          Long.MIN_VALUE, 0));
    }
    scan.readAll(List.of(Topics.PROBE_RESULTS.name()), from, r -> {
      if (to == null || r.timestamp() <= to.toEpochMilli()) {
        inputs.add(new Input(r.topic(), r.key(), r.value(), r.timestamp(), 1));
        counts[1]++;
      }
    });
    // configuration before probes of the same instant, as it was applied before they were sent
    inputs.sort(Comparator.comparingLong(Input::timestamp).thenComparingInt(Input::order));
    List<HealthTransition> transitions = run(inputs);
    return new Result(counts[0], counts[1], transitions, (System.nanoTime() - started) / 1e9);
  }

  private List<HealthTransition> run(List<Input> inputs) throws Exception {
    Path state = Files.createTempDirectory("healthmesh-replay");
    Properties p = new Properties();
    p.setProperty(StreamsSettings.APPLICATION_ID, "healthmesh-replay");
    p.setProperty(StreamsSettings.BOOTSTRAP_SERVERS, "replay:9092");
    p.setProperty(StreamsSettings.SCHEMA_REGISTRY_URL, "http://replay");
    p.setProperty(StreamsSettings.STATE_DIR, state.toString());
    p.setProperty(StreamsSettings.CHANGELOGS, "false");
    StreamsSettings settings = StreamsSettings.from(p);
    long first = inputs.stream().mapToLong(Input::timestamp).filter(t -> t != Long.MIN_VALUE).min().orElse(0);
    // One task holds every key in a TopologyTestDriver: as one partition, no probe needs moving.
    Topology topology = HealthTopology.build(settings, registry, new SimpleMeterRegistry(), 1);
    Set<String> sources = new HashSet<>();
    topology.describe().subtopologies().forEach(st -> st.nodes().forEach(n -> {
      if (n instanceof TopologyDescription.Source source && source.topicSet() != null) {
        sources.addAll(source.topicSet());
      }
    }));
    try (TopologyTestDriver driver = new TopologyTestDriver(topology, settings.streamsProperties(),
        Instant.ofEpochMilli(first))) {
      Map<String, TestInputTopic<byte[], byte[]>> topics = new HashMap<>();
      var output = driver.createOutputTopic(Topics.HEALTH_TRANSITIONS.name(),
          Topics.HEALTH_TRANSITIONS.keySerde(registry).deserializer(),
          Topics.HEALTH_TRANSITIONS.valueSerde(registry).deserializer());
      List<HealthTransition> transitions = new ArrayList<>();
      for (Input in : inputs) {
        if (!sources.contains(in.topic())) {
          continue; // zones and record sets matter to the edges only
        }
        topics.computeIfAbsent(in.topic(), t -> driver.createInputTopic(t, new ByteArraySerializer(),
            new ByteArraySerializer())).pipeInput(in.key(), in.value(), in.timestamp() == Long.MIN_VALUE ? first
            : in.timestamp());
        if (!output.isEmpty()) {
          transitions.addAll(output.readValuesToList());
        }
      }
      transitions.addAll(output.readValuesToList());
      return transitions;
    } finally {
      try (var files = Files.walk(state)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  private static String key(ConsumerRecord<byte[], byte[]> r) {
    return r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
  }

  /** Transitions identified by what they say, not by where they were written. */
  public static String identity(HealthTransition t) {
    EntityKey e = t.getEntity();
    return e.getKind() + "/" + e.getName() + " " + t.getOldStatus() + "->" + t.getNewStatus() + " at " + t.getEventTime();
  }
}
