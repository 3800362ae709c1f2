package io.healthmesh.cli;

import io.healthmesh.cli.launch.Demo;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/** healthctl run in-process against a real broker and registry, with its output captured. */
final class Cli implements AutoCloseable {
  final EmbeddedKafka kafka;
  final SchemaRegistry registry;

  record Run(int exit, String out, String err) {}

  Cli() {
    kafka = EmbeddedKafka.builder().partitions(2).start();
    registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()));
  }

  Run run(String... args) {
    return runWithInput("", args);
  }

  /** Runs with {@code stdin} as standard input, against this broker and registry. */
  Run runWithInput(String stdin, String... args) {
    InputStream in = System.in;
    System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
    try {
      return execute(kafka.bootstrapServers(), registry.url(), args);
    } finally {
      System.setIn(in);
    }
  }

  /** healthctl in this JVM with its output captured; the cluster flags are added when not null. */
  static Run execute(String bootstrap, String registryUrl, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    if (bootstrap != null) {
      all.addAll(List.of("--bootstrap-servers", bootstrap, "--schema-registry-url", registryUrl));
    }
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Healthctl.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  /** healthctl against a running demo. */
  static Run run(Demo demo, String... args) {
    return execute(demo.bootstrap(), demo.registryUrl(), args);
  }

  /** healthctl's JSON output against a running demo; it must succeed. */
  static com.fasterxml.jackson.databind.JsonNode json(Demo demo, String... args) throws Exception {
    Run run = run(demo, args);
    org.assertj.core.api.Assertions.assertThat(run.exit()).as(run.err()).isZero();
    return new com.fasterxml.jackson.databind.ObjectMapper().readTree(run.out());
  }

  /** The end offset of every partition of the topics, to prove that nothing was written. */
  Map<TopicPartition, Long> endOffsets(List<String> topics) throws Exception {
    try (Admin admin = kafka.admin()) {
      Map<TopicPartition, OffsetSpec> request = admin.describeTopics(topics).allTopicNames().get().values().stream()
          .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
          .collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
      return admin.listOffsets(request).all().get().entrySet().stream()
          .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }
  }

  @Override
  public void close() {
    registry.close();
    kafka.close();
  }
}
