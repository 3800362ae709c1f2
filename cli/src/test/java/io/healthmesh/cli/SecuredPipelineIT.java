package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.kafka.embedded.TestCa;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.HealthStreamsApp;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.tools.AclCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * healthmesh on a secured Kafka, as operators run it: a SASL_SSL listener (SCRAM-SHA-512, TLS
 * from a CA made here), Kafka's standard authorizer, one principal per component and exactly the
 * ACLs {@code healthctl acls} prints (R-SEC-1), granted by running its {@code kafka-acls} commands
 * with Kafka's own tool; the schema registry over HTTPS with basic authentication (R-SEC-4).
 * Registry, topology, edge and prober run from the jar in their own JVMs; apply, status and audit
 * run as their users. Then one permission is taken away per component: that component fails
 * naming it (R-SEC-2, R-SEC-3), and the rest keeps working.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecuredPipelineIT {
  private static final List<String> PRINCIPALS = List.of("healthmesh-streams", "edge-1", "healthmesh-registry",
      "healthmesh-prober", "healthctl-read", "healthctl-apply", "healthctl-audit", "healthmesh-xds",
      "healthmesh-haproxy");
  /** The principals of the tests that take one permission away; they are users of the registry too. */
  private static final List<String> LESSER = List.of("topology-without-group", "reader-without-health",
      "prober-without-write");
  /** Registry users that only read schemas; the others also register them. */
  private static final List<String> READERS = List.of("healthctl-read", "healthctl-audit", "reader-without-health",
      "healthmesh-haproxy");
  @TempDir
  static Path dir;
  private static final AtomicInteger status = new AtomicInteger(200);
  private static final Processes processes = new Processes();
  private static HttpServer backend;
  private static TestCa tls;
  private static EmbeddedKafka kafka;
  private static String secured;
  private static String registryUrl;
  private static int dnsPort;
  private static String xdsMetrics;
  private static String haproxyMetrics;

  @BeforeAll
  static void start() throws Exception {
    backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    backend.createContext("/", exchange -> {
      exchange.sendResponseHeaders(status.get(), -1);
      exchange.close();
    });
    backend.start();
    tls = TestCa.make(dir);
    // The broker's setup listener (a super user) creates the topics, as an administrator would.
    kafka = EmbeddedKafka.builder().partitions(2).secured(tls).start();
    secured = kafka.securedBootstrapServers();
    for (String user : PRINCIPALS) {
      kafka.createUser(user, user + "-secret");
    }
    grantWhatHealthctlAclsPrints();

    // The registry itself is secured too: HTTPS with the test CA's certificate, basic authentication.
    StringBuilder users = new StringBuilder();
    java.util.stream.Stream.concat(PRINCIPALS.stream(), LESSER.stream()).forEach(u -> users.append(u).append(": ")
        .append(u).append("-secret, ").append(READERS.contains(u) ? "read" : "write").append('\n'));
    Path usersFile = Files.writeString(dir.resolve("registry-users"), users);
    registryUrl = processes.start(java.util.regex.Pattern.compile("listening on (https://\\S+)"), "registry",
        "--bootstrap-servers", secured, "--client-config", clientConfig("healthmesh-registry"), "port=0",
        "metrics.port=0", "authentication.method=BASIC", "authentication.users.file=" + usersFile,
        "ssl.keystore.location=" + tls.keystore(), "ssl.keystore.password=" + tls.password()).group(1);
    Path config = dir.resolve("config.yaml");
    Files.writeString(config, StandaloneProcessesIT.CONFIG.formatted(backend.getAddress().getPort()));
    Cli.Run apply = healthctl("healthctl-apply", "apply", "-f", config.toString());
    assertThat(apply.exit()).as(apply.err()).isZero();
    processes.start(java.util.regex.Pattern.compile("running against"), "topology", "--bootstrap-servers", secured,
        "--schema-registry-url", registryUrl, "--client-config", clientConfig("healthmesh-streams"),
        "state.dir=" + dir.resolve("streams"), "commit.interval.ms=100", "metrics.port=0");
    dnsPort = Integer.parseInt(processes.start(java.util.regex.Pattern.compile("listening on 127.0.0.1:(\\d+)"),
        "edge", "--bootstrap-servers", secured, "--schema-registry-url", registryUrl, "--client-config",
        clientConfig("edge-1"), "dns.port=0", "edge.name=edge-1", "edge.region=us-east1", "metrics.port=0").group(1));
    processes.start(java.util.regex.Pattern.compile("prober running"), "probe", "run", "--bootstrap-servers", secured,
        "--schema-registry-url", registryUrl, "--client-config", clientConfig("healthmesh-prober"), "--refresh", "PT1S",
        "--metrics-port", "0");
    xdsMetrics = processes.start(java.util.regex.Pattern.compile("metrics on (http://\\S+)/metrics"), "xds",
        "--bootstrap-servers", secured, "--schema-registry-url", registryUrl, "--client-config",
        clientConfig("healthmesh-xds"), "xds.name=xds-1", "xds.port=0", "xds.status.interval.ms=500",
        "metrics.port=0").group(1);
    // No HAProxy listens there: once the adapter has read every decision, the runtime API is all it lacks.
    haproxyMetrics = processes.start(java.util.regex.Pattern.compile("metrics on (http://\\S+)/metrics"), "haproxy",
        "--bootstrap-servers", secured, "--schema-registry-url", registryUrl, "--client-config",
        clientConfig("healthmesh-haproxy"), "haproxy.runtime.api=127.0.0.1:1", "metrics.port=0").group(1);
  }

  /** Runs every kafka-acls command {@code healthctl acls} prints through Kafka's own AclCommand. */
  private static void grantWhatHealthctlAclsPrints() throws Exception {
    Path admin = Files.writeString(dir.resolve("admin.properties"), ""); // the setup listener needs nothing
    Cli.Run acls = Cli.execute(null, null, "acls", "--bootstrap-servers", kafka.bootstrapServers(),
        "--command-config", admin.toString());
    assertThat(acls.exit()).as(acls.err()).isZero();
    List<String> commands = acls.out().lines().filter(l -> l.startsWith("kafka-acls ")).toList();
    assertThat(commands).hasSizeGreaterThan(PRINCIPALS.size());
    // AclCommand exits the JVM when a command fails; here that fails the test instead.
    Exit.setExitProcedure((code, message) -> {
      throw new IllegalStateException("kafka-acls exited " + code + ": " + message);
    });
    try {
      for (String command : commands) {
        assertThat(command).as("plain words, no shell quoting needed here").doesNotContain("'", "\"");
        String[] words = command.split(" ");
        AclCommand.main(Arrays.copyOfRange(words, 1, words.length));
      }
    } finally {
      Exit.resetExitProcedure();
    }
    try (Admin setup = kafka.admin()) {
      assertThat(setup.describeAcls(org.apache.kafka.common.acl.AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS))
          .as("every ACL the components state was created").hasSizeGreaterThanOrEqualTo(40);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    processes.close();
    if (kafka != null) {
      kafka.close();
    }
    if (backend != null) {
      backend.stop(0);
    }
  }

  @Test
  @Order(1)
  void failsOverInDnsAndReports_whenEveryComponentHasExactlyThePrintedAcls() throws Exception {
    StandaloneProcessesIT.awaitAnswer("primary while healthy", dnsPort, "10.9.0.100", Duration.ofSeconds(90));
    Process dig = new ProcessBuilder("dig", "@127.0.0.1", "-p", String.valueOf(dnsPort), "db.corp.internal.", "A",
        "+short", "+tries=1", "+time=2").redirectErrorStream(true).start();
    assertThat(new String(dig.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip())
        .as("dig asks the edge").isEqualTo("10.9.0.100");
    status.set(503);
    StandaloneProcessesIT.awaitAnswer("backup once the prober sees 503", dnsPort, "10.9.9.9", Duration.ofSeconds(30));

    Cli.Run health = healthctl("healthctl-read", "status", "--kind", "endpoint");
    assertThat(health.exit()).as(health.err()).isZero();
    assertThat(health.out()).contains("web/local").contains("UNHEALTHY");
    Cli.Run rrs = healthctl("healthctl-read", "get", "rrs");
    assertThat(rrs.exit()).as(rrs.err()).isZero();
    assertThat(rrs.out()).contains("db.corp.internal.");
    Cli.Run audit = healthctl("healthctl-audit", "audit", "timeline", "endpoint/web/local");
    assertThat(audit.exit()).as(audit.err()).isZero();
    assertThat(audit.out()).contains("UNHEALTHY");

    status.set(200);
    StandaloneProcessesIT.awaitAnswer("primary again", dnsPort, "10.9.0.100", Duration.ofSeconds(30));
  }

  @Test
  @Order(1)
  void servesXdsAndFollowsFailovers_whenTheirPrincipalsHaveExactlyThePrintedAcls() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    await("the xDS server read its topics whole").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
        .until(() -> http.send(HttpRequest.newBuilder(URI.create(xdsMetrics + "/health/ready")).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
    await("its status reaches xds-status, and the reader reads it").atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500)).until(() -> healthctl("healthctl-read", "status", "--xds").out()
            .contains("xds-1"));
    HttpResponse<String> adapter = await("the adapter read every decision").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(300)).until(() -> http.send(HttpRequest.newBuilder(
            URI.create(haproxyMetrics + "/health/ready")).build(), HttpResponse.BodyHandlers.ofString()),
            r -> r.body().contains("runtime API"));
    assertThat(adapter.statusCode()).isEqualTo(503);
    assertThat(adapter.body()).doesNotContain("Kafka");
  }

  @Test
  @Order(2)
  void refusesTheProber_namingItsPrincipal_whenItTriesToWriteConfiguration() throws Exception {
    Map<TopicPartition, Long> before = configEnds();
    Path config = Files.writeString(dir.resolve("takeover.yaml"), """
        kind: ManagedZone
        name: evil
        dnsName: evil.internal.
        networks: [0.0.0.0/0]
        """);
    Cli.Run apply = healthctl("healthmesh-prober", "apply", "-f", config.toString());
    assertThat(apply.exit()).isEqualTo(1);
    assertThat(apply.err()).contains("Kafka refused User:healthmesh-prober (healthctl-apply)")
        .contains("Not authorized to").contains(Topics.MANAGED_ZONES.name())
        .contains("healthctl acls --component healthctl-apply");
    assertThat(configEnds()).as("nothing written").isEqualTo(before);
  }

  @Test
  @Order(3)
  void stopsTheTopology_namingTheGroup_whenItsGroupAclIsMissing() throws Exception {
    String app = "topology-without-group";
    grant(app, HealthStreamsApp.kafkaAccess(app).bindings("User:" + app),
        b -> b.pattern().resourceType() == ResourceType.GROUP);
    Processes.Ended ended = processes.runToEnd(Duration.ofMinutes(2), "topology", "--bootstrap-servers", secured,
        "--schema-registry-url", registryUrl, "--client-config", clientConfig(app), "application.id=" + app,
        "state.dir=" + dir.resolve(app), "metrics.port=0");
    assertThat(ended.exit()).as(ended.output()).isNotZero();
    assertThat(ended.output()).contains("Kafka refused User:" + app + " (topology)")
        .contains("consumer group " + app).contains("joins groups [" + app + "]");
    // The others keep working.
    status.set(503);
    StandaloneProcessesIT.awaitAnswer("backup while that topology failed", dnsPort, "10.9.9.9", Duration.ofSeconds(30));
    status.set(200);
    StandaloneProcessesIT.awaitAnswer("primary again", dnsPort, "10.9.0.100", Duration.ofSeconds(30));
  }

  @Test
  @Order(4)
  void failsStatus_namingTheTopic_whenHealthStateMayNotBeRead() throws Exception {
    String user = "reader-without-health";
    grant(user, CliAccess.reader().bindings("User:" + user), on(Topics.HEALTH_STATE.name(), AclOperation.READ));
    Cli.Run status = healthctl(user, "status");
    assertThat(status.exit()).isEqualTo(1);
    assertThat(status.err()).contains("Kafka refused User:" + user + " (healthctl-read)")
        .contains("[" + Topics.HEALTH_STATE.name() + "]");
    Cli.Run get = healthctl(user, "get", "zone");
    assertThat(get.exit()).as("what it may read still works: " + get.err()).isZero();
    assertThat(get.out()).contains("corp");
  }

  @Test
  @Order(5)
  void reportsTheProberNotReady_namingTheTopic_whenItMayNotWriteProbes() throws Exception {
    String user = "prober-without-write";
    grant(user, CliAccess.prober().bindings("User:" + user), on(Topics.PROBE_RESULTS.name(), AclOperation.WRITE));
    String metrics = processes.start(java.util.regex.Pattern.compile("metrics on (http://\\S+)/metrics"), "probe", "run",
        "--bootstrap-servers", secured, "--schema-registry-url", registryUrl, "--client-config", clientConfig(user),
        "--refresh", "PT1S", "--prober", user, "--metrics-port", "0").group(1);
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> ready = await("not ready, saying why").atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(300)).until(() -> http.send(HttpRequest.newBuilder(
            URI.create(metrics + "/health/ready")).build(), HttpResponse.BodyHandlers.ofString()),
            r -> r.statusCode() == 503 && r.body().contains("Kafka refused"));
    assertThat(ready.body()).contains("User:" + user).contains("[" + Topics.PROBE_RESULTS.name() + "]");
  }

  @Test
  @Order(6)
  void createsTheComponentsAcls_whenAskedToApplyThem() throws Exception {
    Cli.Run run = Cli.execute(kafka.bootstrapServers(), registryUrl, "acls", "--component", "haproxy",
        "--principal", "haproxy=User:applied", "--apply");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("created 2 ACLs for 1 principals");
    try (Admin admin = kafka.admin()) {
      var created = admin.describeAcls(new org.apache.kafka.common.acl.AclBindingFilter(
          org.apache.kafka.common.resource.ResourcePatternFilter.ANY, new org.apache.kafka.common.acl.AccessControlEntryFilter(
              "User:applied", null, AclOperation.ANY, org.apache.kafka.common.acl.AclPermissionType.ANY)))
          .values().get(30, TimeUnit.SECONDS);
      assertThat(created).containsExactlyInAnyOrderElementsOf(
          io.healthmesh.haproxy.HaproxyAdapter.kafkaAccess().bindings("User:applied"));
    }
  }

  /** The ACL that allows {@code operation} on {@code topic}. */
  private static Predicate<AclBinding> on(String topic, AclOperation operation) {
    return b -> b.pattern().resourceType() == ResourceType.TOPIC && b.pattern().name().equals(topic)
        && b.entry().operation() == operation;
  }

  /** Creates {@code user} with the given ACLs but those {@code left} matches. */
  private static void grant(String user, List<AclBinding> acls, Predicate<AclBinding> left) throws Exception {
    kafka.createUser(user, user + "-secret");
    List<AclBinding> granted = acls.stream().filter(left.negate()).toList();
    assertThat(granted).as("one permission left out").hasSizeLessThan(acls.size());
    try (Admin admin = kafka.admin()) {
      admin.createAcls(granted).all().get(30, TimeUnit.SECONDS);
    }
  }

  /** healthctl in this JVM, authenticated as {@code user} on the secured listener. */
  private static Cli.Run healthctl(String user, String... args) throws IOException {
    List<String> all = new java.util.ArrayList<>(List.of(args));
    all.addAll(List.of("--client-config", clientConfig(user)));
    return Cli.execute(secured, registryUrl, all.toArray(String[]::new));
  }

  /** A --client-config file with {@code user}'s SASL_SSL settings. */
  private static String clientConfig(String user) throws IOException {
    Path file = dir.resolve(user + ".properties");
    if (!Files.exists(file)) {
      Properties p = new Properties();
      tls.clientSettings(user, user + "-secret").forEach((k, v) -> p.setProperty(k, v.toString()));
      // The same user and CA for the schema registry, with Confluent's client keys.
      p.setProperty("basic.auth.credentials.source", "USER_INFO");
      p.setProperty("basic.auth.user.info", user + ":" + user + "-secret");
      p.setProperty("schema.registry.ssl.truststore.location", tls.truststore().toString());
      p.setProperty("schema.registry.ssl.truststore.password", tls.password());
      try (var out = Files.newOutputStream(file)) {
        p.store(out, user);
      }
    }
    return file.toString();
  }

  private static Map<TopicPartition, Long> configEnds() throws Exception {
    try (Admin admin = kafka.admin()) {
      List<String> topics = CliAccess.configTopics();
      var request = admin.describeTopics(topics).allTopicNames().get().values().stream()
          .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
          .collect(java.util.stream.Collectors.toMap(tp -> tp, tp -> org.apache.kafka.clients.admin.OffsetSpec.latest()));
      return admin.listOffsets(request).all().get().entrySet().stream()
          .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }
  }
}
