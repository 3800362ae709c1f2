package io.healthmesh.cli;

import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.probe.Heartbeats;
import io.healthmesh.cli.probe.ProbeLines;
import io.healthmesh.cli.probe.Prober;
import io.healthmesh.cli.probe.ProberTls;
import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.net.IpAddress;
import io.healthmesh.observability.MetricsServer;
import io.healthmesh.schemas.KafkaRefusal;
import io.healthmesh.schemas.Topics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code probe publish} and {@code probe run}. */
@Command(name = "probe", mixinStandardHelpOptions = true, description = "Publish probe results, or run the active prober.",
    subcommands = {ProbeCommand.Publish.class, ProbeCommand.Run.class})
final class ProbeCommand extends CommandGroup {

  static KafkaProducer<String, ProbeResult> producer(ClusterOptions cluster) {
    Map<String, Object> props = new HashMap<>(cluster.client());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, 262_144);
    return new KafkaProducer<>(props, Topics.PROBE_RESULTS.keySerde(cluster.registry()).serializer(),
        Topics.PROBE_RESULTS.valueSerde(cluster.registry()).serializer());
  }

  static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "healthctl";
    }
  }

  @Command(name = "publish", mixinStandardHelpOptions = true, description = {
      "Publish one probe result from flags, or many from JSON lines (-f FILE or -f - for stdin).",
      "A line has the ProbeResult fields, for example:",
      "  {\"backendService\":\"orders-use1\",\"endpointId\":\"vm-1\",\"success\":false,\"detail\":\"HTTP 503\"}",
      "eventTime (ISO-8601 or epoch ms) defaults to now; {\"type\":\"HEARTBEAT\"} goes to every partition.",
      "Bad lines are reported with their number and skipped; the exit code is then 2."})
  static final class Publish implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    ClusterOptions cluster;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Source source;

    static final class Source {
      @ArgGroup(exclusive = false)
      One one;

      @Option(names = {"-f", "--file"}, paramLabel = "FILE|-", description = "JSON lines; - reads stdin.")
      String file;
    }

    static final class One {
      @Option(names = "--service", description = "Backend service; leave out for an external endpoint.")
      String service;

      @Option(names = "--endpoint", required = true, description = "Endpoint id, or an external endpoint's address.")
      String endpoint;

      @Option(names = "--failure", description = "The check failed (default: it succeeded).")
      boolean failure;

      @Option(names = "--time", description = "Event time, ISO-8601 (default: now).")
      Instant time;

      @Option(names = "--latency-ms", defaultValue = "0", description = "Check latency in milliseconds.")
      double latencyMs;

      @Option(names = "--detail", defaultValue = "", description = "Free text, such as HTTP 503.")
      String detail;
    }

    @Option(names = "--prober", description = "Prober name recorded with each result (default: this host's name).")
    String prober;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      String by = prober != null ? prober : hostName();
      int rejected = 0;
      Sends sends = new Sends();
      try (KafkaProducer<String, ProbeResult> producer = producer(cluster)) {
        if (source.one != null) {
          One o = source.one;
          ProbeResult r = ProbeResult.newBuilder().setBackendService(o.service).setEndpointId(o.endpoint)
              .setSuccess(!o.failure).setEventTime(o.time != null ? o.time : Instant.now()).setProber(by)
              .setLatencyMicros((long) (o.latencyMs * 1000)).setDetail(o.detail).build();
          String problem = ProbeLines.problem(r, Instant.now());
          if (problem != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), problem);
          }
          sends.send(producer, r, "result");
        } else {
          BufferedReader in = source.file.equals("-")
              ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
              : Files.newBufferedReader(Path.of(source.file));
          try (in) {
            String line;
            int number = 0;
            while ((line = in.readLine()) != null) {
              number++;
              if (line.isBlank()) {
                continue;
              }
              ProbeLines.Parsed parsed = ProbeLines.parse(line, Instant.now());
              if (parsed.problem() != null) {
                rejected++;
                err.println("line " + number + ": " + parsed.problem());
                continue;
              }
              ProbeResult r = parsed.result();
              if (r.getProber().isEmpty()) {
                r.setProber(by);
              }
              sends.send(producer, r, "line " + number);
            }
          }
        }
        producer.flush();
      }
      sends.failures.forEach(err::println);
      out.println("published " + sends.published.get() + ", rejected " + rejected
          + (sends.failures.isEmpty() ? "" : ", not published " + sends.failures.size()));
      out.flush();
      err.flush();
      return rejected > 0 || !sends.failures.isEmpty() ? 2 : 0;
    }

    /**
     * Sends without waiting for each acknowledgement, so that a file of 100,000 results goes out
     * in batches in seconds; a record the broker refuses is reported with its line. The producer
     * is idempotent, so retries keep each partition's order.
     */
    private static final class Sends {
      final AtomicInteger published = new AtomicInteger();
      final List<String> failures = Collections.synchronizedList(new ArrayList<>());

      void send(KafkaProducer<String, ProbeResult> producer, ProbeResult r, String where) {
        Callback done = (metadata, e) -> {
          if (e == null) {
            published.incrementAndGet();
          } else {
            failures.add(where + ": not published: " + e.getMessage());
          }
        };
        if (r.getType() == ProbeRecordType.HEARTBEAT) {
          Heartbeats.send(producer, r.getProber(), r.getEventTime(), done);
          return;
        }
        if (r.getBackendService() == null || r.getBackendService().isBlank()) {
          // Keyed by its address, so one spelling for every prober puts it on one partition (R-DNSHC-1).
          r.setEndpointId(IpAddress.canonicalOrSame(r.getEndpointId()));
        }
        producer.send(new ProducerRecord<>(Topics.PROBE_RESULTS.name(), null, r.getEventTime().toEpochMilli(),
            ProbeLines.key(r), r), done);
      }
    }
  }

  @Command(name = "run", mixinStandardHelpOptions = true, description = {
      "Run the active prober: check every endpoint of every backend service, and every external endpoint",
      "of the record sets, over TCP or HTTP(S) as its health check says, and publish the results.",
      "Follows configuration changes; stops cleanly on SIGTERM or Ctrl-C."})
  static final class Run implements Callable<Integer> {
    @Mixin
    ClusterOptions cluster;

    @Option(names = "--concurrency", defaultValue = "1000", description = "Checks in flight at a time (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--refresh", defaultValue = "PT10S", description = "How often to re-read the configuration"
        + " (ISO-8601 duration, default: ${DEFAULT-VALUE}).")
    Duration refresh;

    @Option(names = "--heartbeat", defaultValue = "PT1S", description = "Heartbeat interval (default: ${DEFAULT-VALUE}).")
    Duration heartbeat;

    @Option(names = "--prober", description = "Prober name recorded with each result, its identity in the probers'"
        + " quorum (default: REGION/HOST with --region, else this host's name).")
    String prober;

    @Option(names = "--region", description = "Check only the backend services of this region (one prober per region);"
        + " external endpoints are then left to a prober without --region.")
    String region;

    @Option(names = "--ca-file", paramLabel = "PEM", description = "Trust these CA certificates for HTTPS, HTTP2 and SSL"
        + " checks instead of the JDK's roots.")
    java.nio.file.Path caFile;

    @Option(names = "--insecure", description = "Accept any server certificate, as the cloud's health checks do.")
    boolean insecure;

    @Option(names = "--metrics-host", defaultValue = "127.0.0.1", description = "Where /metrics is served (default: ${DEFAULT-VALUE}).")
    String metricsHost;

    @Option(names = "--metrics-port", defaultValue = "9405", description = "Port of /metrics; 0 picks one (default: ${DEFAULT-VALUE}).")
    int metricsPort;

    @Override
    public Integer call() throws Exception {
      if (concurrency < 1) {
        throw new CommandLine.ParameterException(new CommandLine(this), "--concurrency must be at least 1");
      }
      if (insecure && caFile != null) {
        throw new CommandLine.ParameterException(new CommandLine(this), "--insecure trusts every certificate:"
            + " give it or --ca-file, not both");
      }
      ProberTls tls;
      try {
        tls = ProberTls.of(caFile, insecure);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
      }
      PrometheusMeterRegistry meters = MetricsServer.newRegistry("prober");
      String name = prober != null ? prober : region != null ? region + "/" + hostName() : hostName();
      Prober p = new Prober(new ConfigTopics(cluster.client(), cluster.registry()), producer(cluster),
          name, concurrency, region, meters)
          .explainingRefusals(r -> KafkaRefusal.explain(r, CliAccess.prober(), cluster.client()))
          .trusting(tls)
          .start(refresh, heartbeat);
      if (p.refused() != null) {
        p.close(); // fail fast: a prober that may not read its targets checks nothing
        throw new IllegalStateException(p.refused());
      }
      MetricsServer served = MetricsServer.start(metricsHost, metricsPort, meters, p::notReady);
      System.out.println("prober running as " + name + ": " + p.targets() + " targets, results to " + cluster.bootstrapServers
          + "; metrics on " + served.url());
      CountDownLatch stopped = new CountDownLatch(1);
      // the JVM halts once its hooks finish, so the hook itself closes the prober
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        p.close();
        served.close();
        stopped.countDown();
      }, "prober-shutdown"));
      stopped.await();
      return 0;
    }
  }
}
