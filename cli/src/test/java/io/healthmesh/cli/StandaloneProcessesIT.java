package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
  private final Processes processes = new Processes();

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
      Matcher registry = processes.start(Pattern.compile("listening on (http://\\S+)"), "registry", "--bootstrap-servers",
          bootstrap, "port=0", "metrics.port=0");
      String registryUrl = registry.group(1);
      Path config = dir.resolve("config.yaml");
      Files.writeString(config, CONFIG.formatted(backend.getAddress().getPort()));
      Cli.Run apply = Cli.execute(bootstrap, registryUrl, "apply", "-f", config.toString());
      assertThat(apply.exit()).as(apply.err()).isZero();
      processes.start(Pattern.compile("running against"), "topology", "--bootstrap-servers", bootstrap, "--schema-registry-url",
          registryUrl, "state.dir=" + dir.resolve("streams"), "commit.interval.ms=100", "metrics.port=0");
      int dnsPort = Integer.parseInt(processes.start(Pattern.compile("listening on 127.0.0.1:(\\d+)"), "edge",
          "--bootstrap-servers", bootstrap, "--schema-registry-url", registryUrl, "dns.port=0",
          "edge.region=us-east1", "metrics.port=0").group(1));
      processes.start(Pattern.compile("prober running"), "probe", "run", "--bootstrap-servers", bootstrap,
          "--schema-registry-url", registryUrl, "--refresh", "PT1S", "--metrics-port", "0");

      awaitAnswer("primary while healthy", dnsPort, "10.9.0.100", Duration.ofSeconds(60));
      status.set(503);
      awaitAnswer("backup once the prober sees 503", dnsPort, "10.9.9.9", Duration.ofSeconds(30));
      status.set(200);
      awaitAnswer("primary again", dnsPort, "10.9.0.100", Duration.ofSeconds(30));
    } finally {
      processes.close();
      backend.stop(0);
    }
  }

  /** Until the edge answers db.corp.internal. with {@code address} alone; not answering yet counts as not yet. */
  static void awaitAnswer(String what, int port, String address, Duration timeout) throws Exception {
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress("127.0.0.1", port));
    resolver.setTimeout(Duration.ofSeconds(2));
    Message query = Message.newQuery(Record.newRecord(Name.fromConstantString("db.corp.internal."), Type.A, DClass.IN));
    org.awaitility.Awaitility.await(what).atMost(timeout).pollInterval(Duration.ofMillis(300))
        .ignoreException(java.io.IOException.class).until(() -> {
          List<Record> answer = resolver.send(query).getSection(Section.ANSWER);
          return answer.size() == 1 && answer.get(0).rdataToString().equals(address);
        });
  }

  /** A backend service on a local HTTP port (%d), and a failover record set whose primary is its forwarding rule. */
  static final String CONFIG = """
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
