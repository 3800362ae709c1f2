package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * The way docker-compose runs healthmesh: registry, topology, edge and prober each in its own JVM
 * from the packaged jar, against a broker they share. A real HTTP backend on loopback fails and a
 * failover record set switches to its backup.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StandaloneProcessesIT {
  private static final Path JAR = Path.of("target/healthctl.jar").toAbsolutePath();
  private final List<Process> processes = new ArrayList<>();

  @Test
  void failsOverInDns_whenTheProberSeesTheBackendFail(@TempDir Path dir) throws Exception {
    AtomicInteger status = new AtomicInteger(200);
    HttpServer backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    backend.createContext("/", exchange -> {
      exchange.sendResponseHeaders(status.get(), -1);
      exchange.close();
    });
    backend.start();
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).start()) {
      String bootstrap = kafka.bootstrapServers();
      Matcher registry = start(Pattern.compile("listening on (http://\\S+)"), "registry", "--bootstrap-servers",
          bootstrap, "port=0", "metrics.port=0");
      String registryUrl = registry.group(1);
      Path config = dir.resolve("config.yaml");
      Files.writeString(config, CONFIG.formatted(backend.getAddress().getPort()));
      Cli.Run apply = Cli.execute(bootstrap, registryUrl, "apply", "-f", config.toString());
      assertThat(apply.exit()).as(apply.err()).isZero();
      start(Pattern.compile("running against"), "topology", "--bootstrap-servers", bootstrap, "--schema-registry-url",
          registryUrl, "state.dir=" + dir.resolve("streams"), "commit.interval.ms=100", "metrics.port=0");
      int dnsPort = Integer.parseInt(start(Pattern.compile("listening on 127.0.0.1:(\\d+)"), "edge",
          "--bootstrap-servers", bootstrap, "--schema-registry-url", registryUrl, "dns.port=0",
          "edge.region=us-east1", "metrics.port=0").group(1));
      start(Pattern.compile("prober running"), "probe", "run", "--bootstrap-servers", bootstrap,
          "--schema-registry-url", registryUrl, "--refresh", "PT1S", "--metrics-port", "0");

      awaitAnswer("primary while healthy", dnsPort, "10.9.0.100", Duration.ofSeconds(60));
      status.set(503);
      awaitAnswer("backup once the prober sees 503", dnsPort, "10.9.9.9", Duration.ofSeconds(30));
      status.set(200);
      awaitAnswer("primary again", dnsPort, "10.9.0.100", Duration.ofSeconds(30));
    } finally {
      processes.forEach(p -> p.destroy()); // SIGTERM: each closes cleanly
      for (Process p : processes) {
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
      backend.stop(0);
    }
  }


  /** Starts {@code healthctl args} in a new JVM and waits for the line that says it is up. */
  private Matcher start(Pattern banner, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
        "-Xmx256m", "-jar", JAR.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    processes.add(process);
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          lines.add(line);
        }
      } catch (java.io.IOException e) {
        // the process ended
      }
    });
    reader.setDaemon(true);
    reader.start();
    StringBuilder seen = new StringBuilder();
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < deadline) {
      String line = lines.poll(200, TimeUnit.MILLISECONDS);
      if (line != null) {
        seen.append(line).append('\n');
        Matcher m = banner.matcher(line);
        if (m.find()) {
          return m;
        }
      } else if (!process.isAlive()) {
        break;
      }
    }
    throw new AssertionError("healthctl " + String.join(" ", args) + " did not start:\n" + seen);
  }

  /** Until the edge answers db.corp.internal. with {@code address} alone; not answering yet counts as not yet. */
  private static void awaitAnswer(String what, int port, String address, Duration timeout) throws Exception {
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", port));
    resolver.setTimeout(Duration.ofSeconds(2));
    Message query = Message.newQuery(Record.newRecord(Name.fromConstantString("db.corp.internal."), Type.A, DClass.IN));
    org.awaitility.Awaitility.await(what).atMost(timeout).pollInterval(Duration.ofMillis(300))
        .ignoreException(java.io.IOException.class).until(() -> {
          List<Record> answer = resolver.send(query).getSection(Section.ANSWER);
          return answer.size() == 1 && answer.get(0).rdataToString().equals(address);
        });
  }

  private static final String CONFIG = """
      kind: BackendService
      name: web
      region: us-east1
      healthCheck: {protocol: HTTP, port: %d, checkIntervalSec: 1, timeoutSec: 1}
      endpoints: [{id: local, ipAddress: 127.0.0.1}]
      ---
      kind: HealthAggregationPolicy
      name: one
      region: us-east1
      ---
      kind: HealthSource
      name: web-src
      region: us-east1
      backendService: web
      healthAggregationPolicy: one
      ---
      kind: ForwardingRule
      name: fr-web
      region: us-east1
      ipAddress: 10.9.0.100
      backendService: web
      ---
      kind: CompositeHealthCheck
      name: web-chc
      region: us-east1
      healthSources: [web-src]
      healthDestination: fr-web
      ---
      kind: ManagedZone
      name: corp
      dnsName: corp.internal.
      networks: [127.0.0.0/8]
      ---
      kind: ResourceRecordSet
      zone: corp
      name: db.corp.internal.
      type: A
      ttl: 5
      routingPolicy:
        primaryBackup:
          primaryTargets: {internalLoadBalancers: [{forwardingRule: fr-web}]}
          backupGeoTargets: {items: [{location: us-east1, rrdatas: [10.9.9.9]}]}
      """;
}
