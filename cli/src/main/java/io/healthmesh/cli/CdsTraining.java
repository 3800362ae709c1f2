package io.healthmesh.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.healthmesh.cli.config.AvroJson;
import io.healthmesh.cli.config.Catalog;
import io.healthmesh.cli.config.Resource;
import io.healthmesh.cli.config.ResourceReader;
import io.healthmesh.cli.config.Validator;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.schemas.RegistryException;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;

/**
 * The launcher's class-data-sharing training run ({@code ./healthctl} runs it once per build with
 * {@code -XX:DumpLoadedClassList}, then dumps a static archive of that list): it loads what the
 * everyday commands load (help, YAML and Avro, the rules, Kafka's clients) without contacting
 * anything, so that they start from the archive instead of from hundreds of jar lookups.
 */
@Command(name = "cds-training", hidden = true, mixinStandardHelpOptions = true, description = "Loads the classes the launcher archives.")
final class CdsTraining implements Callable<Integer> {
  private static final List<String> KAFKA_PACKAGES = List.of("org/apache/kafka/common/message/",
      "org/apache/kafka/common/requests/", "org/apache/kafka/common/protocol/", "org/apache/kafka/common/record/",
      // every client (consumer, producer, admin) with its internals
      "org/apache/kafka/clients/",
      // the exceptions Errors makes at its first use, and what a connection and its metrics load
      "org/apache/kafka/common/errors/", "org/apache/kafka/common/network/", "org/apache/kafka/common/utils/",
      "org/apache/kafka/common/serialization/", "org/apache/kafka/common/security/", "org/apache/kafka/common/metrics/",
      "org/apache/kafka/common/header/", "org/apache/kafka/common/feature/", "org/apache/kafka/common/telemetry/");

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    StringWriter ignored = new StringWriter();
    CommandLine root = spec.root().commandLine();
    root.usage(new PrintWriter(ignored));
    for (String command : List.of("status", "get", "apply", "audit")) {
      root.getSubcommands().get(command).usage(new PrintWriter(ignored));
    }
    try (InputStream demo = CdsTraining.class.getResourceAsStream("demo.yaml")) {
      ResourceReader.Read read = ResourceReader.read("demo.yaml", demo);
      Validator.check(new Catalog(), read.resources());
      for (Resource r : read.resources()) {
        GetCommand.YAML.writeValueAsString(AvroJson.write(r.value(), r.kind().identity()));
      }
    }
    HealthState state = HealthState.newBuilder().setStatus(HealthStatus.HEALTHY).setSince(Instant.now())
        .setVersion(1).build();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
    new SpecificDatumWriter<>(HealthState.class).write(state, encoder);
    encoder.flush();
    new SpecificDatumReader<>(HealthState.class).read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
    new ObjectMapper().writeValueAsString(new EntityKey(EntityKind.ENDPOINT, "a/b").toString());
    // Nothing listens on port 9: the clients are built and closed without a connection.
    Map<String, Object> client = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    new KafkaConsumer<>(client, new ByteArrayDeserializer(), new ByteArrayDeserializer()).close(Duration.ZERO);
    // Kafka's error table, which the first response to any request reads: initialising it links a
    // lambda for each of Kafka's 138 errors, spun at every start (a fifth of its 90 ms) unless archived.
    Errors.forCode(Errors.NONE.code());
    new KafkaProducer<>(client, new ByteArraySerializer(), new ByteArraySerializer()).close(Duration.ZERO);
    // What a connection loads: the registry's HTTP client refused, and Kafka's protocol, which a
    // connection loads whole (every request and response type) but which nothing here can connect to.
    try {
      RestSchemaRegistryClient.of("http://127.0.0.1:9", Map.of()).byId(1);
    } catch (RegistryException expected) {
      // connection refused: the client's classes are loaded all the same
    }
    loadPackages(KafkaConsumer.class, KAFKA_PACKAGES);
    return 0;
  }

  /** Loads (without initialising) every class of these packages in the jar of {@code anchor}. */
  private static void loadPackages(Class<?> anchor, List<String> packages) throws IOException {
    ClassLoader loader = anchor.getClassLoader();
    try (JarFile jar = new JarFile(new File(URI.create(anchor.getProtectionDomain().getCodeSource().getLocation()
        .toString())))) {
      for (JarEntry entry : Collections.list(jar.entries())) {
        String name = entry.getName();
        if (name.endsWith(".class") && packages.stream().anyMatch(name::startsWith)) {
          try {
            Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false, loader);
          } catch (ClassNotFoundException | LinkageError e) {
            // a class that needs what is not on the class path is not one the commands use
          }
        }
      }
    }
  }
}
