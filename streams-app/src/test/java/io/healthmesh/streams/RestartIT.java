package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A sole topology instance killed (SIGKILL) while endpoints flip and started again on the same
 * state directory, as a dynamic and as a static member of its group: each probe's transition is
 * published exactly once across the crash, and what the restart restored is measured. The
 * stores are in memory, so the restart reads every changelog whole; persistent stores would be
 * too under exactly-once on Kafka 4.4.0 (docs/architecture.md, "Stores in memory").
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class RestartIT {
  private static final String APP = "restart-it";
  /** {@code -Drestart.endpoints=1000000} measures a restart at a fleet's size (docs/benchmarks.md). */
  private static final int POPULATION = Integer.getInteger("restart.endpoints", 20_000);
  private static final int BACKGROUND_RATE = Integer.getInteger("restart.background.rate", 5_000);
  private static final Pattern RESTORED = Pattern.compile("restored (\\d+) records of store (\\S+) from");

  /** How the instance is a member of its group. */
  enum Setup {
    /** The default: a new member id at every start. */
    DYNAMIC,
    /** {@code healthmesh.instance.id} set, as docs/components.md ("Restart") advises. */
    STATIC
  }

  @ParameterizedTest
  @EnumSource(Setup.class)
  void publishesEachTransitionOnce_andRestoresItsState_whenKilledAndRestarted(Setup setup, @TempDir Path dir)
      throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(4)
            .brokerProperty(BrokerLimits.MIN_SESSION, "1000").brokerProperty(BrokerLimits.ABORT_CHECK, "1000").start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      Fleet fleet = new Fleet(kafka, client, POPULATION, BACKGROUND_RATE);
      fleet.configure();
      Path logs = Files.createDirectories(Path.of("target", "restart-logs"));
      Process first = start(kafka, registry, dir, setup, logs.resolve(setup + "-first.log"));
      Process second = null;
      Fleet.Watcher watcher = fleet.watcher();
      Fleet.Prober prober = fleet.prober();
      Fleet.Background background = fleet.background();
      try {
        long t0 = System.nanoTime();
        background.probeAllOnce();
        await("every probe applied").atMost(Duration.ofMinutes(15)).pollInterval(Duration.ofMillis(200))
            .until(() -> kafka.consumed(APP, Topics.PROBE_RESULTS.name()));
        double judged = (System.nanoTime() - t0) / 1e9;
        background.start();
        watcher.start();
        prober.start();
        Thread.sleep(6_000); // steady flipping

        long killed = System.currentTimeMillis();
        first.destroyForcibly(); // SIGKILL: no commit, no goodbye
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Path secondLog = logs.resolve(setup + "-second.log");
        Files.deleteIfExists(secondLog); // from an earlier run
        second = start(kafka, registry, dir, setup, secondLog);
        long running = System.currentTimeMillis() - killed;
        Thread.sleep(Math.max(15_000, POPULATION / 20)); // the window in which the stall is measured
        long stall = watcher.longestGap(killed - 1_000, System.currentTimeMillis());

        Fleet.Outcome outcome = Fleet.finish(prober, background, watcher);
        second.destroy();
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
        await("its log").atMost(Duration.ofSeconds(10)).until(() -> Files.exists(secondLog));
        Map<String, Long> restored = restored(secondLog);
        long total = restored.values().stream().mapToLong(Long::longValue).sum();

        System.out.printf("restart (%s, %,d endpoints, judged in %.1f s): running again %.1f s after SIGKILL,"
            + " flipping endpoints stalled %.1f s; restored %,d changelog records (%,d of them endpoint groups)%n",
            setup, POPULATION, judged, running / 1000.0, stall / 1000.0, total, restored.getOrDefault("endpoints", 0L));
        outcome.assertEachProbePublishedOnce();
        // The population's services alone are POPULATION / 10 records in two changelogs
        // (per-service and aggregate): a restart of in-memory stores reads at least those.
        long services = POPULATION / Fleet.PER_SERVICE;
        assertThat(total).as("every changelog is read whole").isGreaterThanOrEqualTo(2 * services);
        assertThat(stall).as("the killed instance's work resumes").isLessThan(30_000);
      } finally {
        prober.stop();
        background.stop();
        watcher.stop();
        for (Process p : new Process[] {first, second}) {
          if (p != null) {
            p.destroyForcibly();
          }
        }
      }
    }
  }

  private static Process start(EmbeddedKafka kafka, SchemaRegistry registry, Path dir, Setup setup, Path log)
      throws Exception {
    List<String> settings = new ArrayList<>();
    if (setup == Setup.STATIC) {
      settings.add(StreamsSettings.INSTANCE_ID + "=restart-it-a");
    }
    return StreamsProcess.start(kafka, registry, APP, dir.resolve("state"), log, settings.toArray(String[]::new));
  }

  /** Records restored by store, from the log lines of {@code RestoreLog}. */
  private static Map<String, Long> restored(Path log) throws Exception {
    Map<String, Long> restored = new java.util.TreeMap<>();
    for (String line : Files.readAllLines(log)) {
      Matcher m = RESTORED.matcher(line);
      if (m.find()) {
        restored.merge(m.group(2), Long.parseLong(m.group(1)), Long::sum);
      }
    }
    return restored;
  }
}
