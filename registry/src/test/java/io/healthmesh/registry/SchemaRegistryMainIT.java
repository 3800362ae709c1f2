package io.healthmesh.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The registry as its own process, configured from a properties file plus overrides. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SchemaRegistryMainIT {
  private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

  @Test
  void servesFromItsOwnProcess_whenStartedWithAPropertiesFile(@TempDir Path dir) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().createTopics(false).start()) {
      Path file = Files.writeString(dir.resolve("registry.properties"),
          "kafkastore.bootstrap.servers=" + kafka.bootstrapServers() + "\nport=0\n");
      Process process = new ProcessBuilder(JAVA, "-cp", System.getProperty("java.class.path"),
          SchemaRegistryMain.class.getName(), file.toString(), "schema.compatibility.level=FULL")
          .redirectErrorStream(true).start();
      try {
        String url = awaitUrl(process);
        RestSchemaRegistryClient client = new RestSchemaRegistryClient(url);
        int id = client.register("standalone-value", Schema.create(Schema.Type.STRING));
        assertThat(client.byId(id)).isEqualTo(Schema.create(Schema.Type.STRING));
        assertThat(client.compatibility(null)).isEqualTo("FULL");
      } finally {
        process.destroy();
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
      }
    }
  }

  @Test
  void exitsWithCode2AndListsProblems_whenConfigurationIsInvalid() throws Exception {
    Process process = new ProcessBuilder(JAVA, "-cp", System.getProperty("java.class.path"),
        SchemaRegistryMain.class.getName(), "port=-1").redirectErrorStream(true).start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(out).contains("port: -1 is outside 0..65535").contains("kafkastore.bootstrap.servers: required");
  }

  private static String awaitUrl(Process process) throws Exception {
    Pattern listening = Pattern.compile("listening on (http://\\S+)");
    BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    List<String> seen = new java.util.ArrayList<>();
    String line;
    while ((line = lines.readLine()) != null) {
      seen.add(line);
      Matcher m = listening.matcher(line);
      if (m.find()) {
        return m.group(1);
      }
    }
    throw new AssertionError("registry exited before listening:\n" + String.join("\n", seen));
  }
}
