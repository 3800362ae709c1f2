package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.registry.RegistrySettings;
import io.healthmesh.registry.SchemaRegistry;
import io.healthmesh.schemas.RestSchemaRegistryClient;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.healthmesh.streams.endpoint.EndpointWrites;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.MemberDescription;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two topology processes in one application id, with a standby copy of every task, while every
 * endpoint flips on every probe (4 per second): a stopped instance (SIGTERM) leaves the group
 * and a killed one (SIGKILL) is noticed when its session ends; the survivor takes their tasks
 * over, a new instance takes its share at the first rebalance (its copies are close enough), and every probe's
 * transition is published exactly once throughout.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class TakeoverIT {
  private static final String APP = "takeover-it";
  /**
   * Endpoints beside the flipping ones, probed HEALTHY once and then at a steady background rate
   * (they change nothing): 0 in the suite; {@code -Dtakeover.endpoints=100000} measures takeover
   * at a fleet's size (docs/benchmarks.md).
   */
  private static final int POPULATION = Integer.getInteger("takeover.endpoints", 0);
  private static final int BACKGROUND_RATE = Integer.getInteger("takeover.background.rate", 5_000);

  /** Against both ways of writing endpoint state: a task migration moves what either wrote. */
  @ParameterizedTest
  @EnumSource(EndpointWrites.class)
  void survivorsTakeOverWithinSeconds_andNoTransitionIsLostOrDoubled(EndpointWrites writes, @TempDir Path dir) throws Exception {
    // Tuned as docs/components.md ("Takeover") advises for fast takeover: sessions down to 1 s, and timed-out
    // transactions aborted within a second instead of ten.
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(4)
            .brokerProperty(BrokerLimits.MIN_SESSION, "1000").brokerProperty(BrokerLimits.ABORT_CHECK, "1000").start();
        SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.forTests(kafka.bootstrapServers()))) {
      SchemaRegistryClient client = new RestSchemaRegistryClient(registry.url());
      Fleet fleet = new Fleet(kafka, client, POPULATION, BACKGROUND_RATE);
      fleet.configure();
      Process a = start(kafka, registry, dir, "a", writes);
      Process b = start(kafka, registry, dir, "b", writes);
      Process c = null;
      Fleet.Watcher watcher = fleet.watcher();
      Fleet.Prober prober = fleet.prober();
      Fleet.Background background = fleet.background();
      try {
        awaitMembers(kafka, 2, Duration.ofSeconds(60));
        if (POPULATION > 0) {
          long t0 = System.nanoTime();
          background.probeAllOnce();
          await("every probe applied").atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(200))
              .until(() -> kafka.consumed(APP, Topics.PROBE_RESULTS.name()));
          System.out.printf("takeover: %,d endpoints probed and judged in %.1f s%n", POPULATION, (System.nanoTime() - t0) / 1e9);
          Thread.sleep(10_000); // standbys catch up with the changelogs
          background.start();
        }
        watcher.start();
        prober.start();
        Thread.sleep(8_000); // steady flipping

        long stopped = System.currentTimeMillis();
        a.destroy(); // SIGTERM: the shutdown hook closes and leaves the group
        assertThat(a.waitFor(60, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(10_000); // the window in which the stall is measured
        long sigterm = watcher.longestGap(stopped - 1_000, System.currentTimeMillis());

        Set<String> before = memberIds(kafka);
        long joined = System.currentTimeMillis();
        c = start(kafka, registry, dir, "c", writes);
        long share = awaitNewMemberServing(kafka, before, Duration.ofSeconds(150)) - joined;

        Thread.sleep(5_000); // the moved tasks restore, then run: the window in which the join's stall is measured
        long killed = System.currentTimeMillis();
        long join = watcher.longestGap(joined - 1_000, killed);
        b.destroyForcibly(); // SIGKILL: no goodbye, the session has to expire
        assertThat(b.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(20_000); // the window in which the stall is measured
        long sigkill = watcher.longestGap(killed - 1_000, System.currentTimeMillis());

        Fleet.Outcome outcome = Fleet.finish(prober, background, watcher);

        System.out.printf("takeover (" + writes.setting + "): SIGTERM stall %.1f s, new instance serving its share after %.1f s"
            + " (stall %.1f s), SIGKILL stall %.1f s; %d probes, each published once%n", sigterm / 1000.0, share / 1000.0,
            join / 1000.0, sigkill / 1000.0, outcome.probes());
        outcome.assertEachProbePublishedOnce();
        assertThat(sigterm).as("SIGTERM: the instance left the group").isLessThan(5_000);
        // The session (3 s) ends, and the dead instance's open transaction must be aborted by the
        // broker (its timeout, 3 s, checked every second) before the partitions read on: about 4 s,
        // with room here for a loaded machine.
        assertThat(sigkill).as("SIGKILL: the session and the dead transaction time out").isLessThan(10_000);
        // Its copies are within acceptable.recovery.lag, so it takes its tasks at once and restores them.
        assertThat(share).as("a new instance serves its share").isLessThan(60_000);
        assertThat(join).as("the moved tasks stall while they restore").isLessThan(10_000);
      } finally {
        prober.stop();
        background.stop();
        watcher.stop();
        for (Process p : new Process[] {a, b, c}) {
          if (p != null) {
            p.destroyForcibly();
          }
        }
      }
    }
  }

  private static Process start(EmbeddedKafka kafka, SchemaRegistry registry, Path dir, String name,
      EndpointWrites writes) throws Exception {
    // Kept under target/, not in the temporary directory: a slow takeover is explained by these logs.
    Path logs = Files.createDirectories(Path.of("target", "takeover-logs"));
    return StreamsProcess.start(kafka, registry, APP, dir.resolve("state-" + name), logs.resolve(writes.setting + "-" + name
        + ".log"),
        "num.standby.replicas=1", StreamsSettings.ENDPOINT_WRITES + "=" + writes.setting);
  }

  private static Set<String> memberIds(EmbeddedKafka kafka) throws Exception {
    Set<String> ids = new HashSet<>();
    members(kafka).forEach(m -> ids.add(m.consumerId()));
    return ids;
  }

  private static java.util.Collection<MemberDescription> members(EmbeddedKafka kafka) throws Exception {
    return Fleet.members(kafka, APP);
  }

  private static void awaitMembers(EmbeddedKafka kafka, int count, Duration timeout) {
    await(count + " members with work").atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
      var members = members(kafka);
      return members.size() == count && members.stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty());
    });
  }

  /** Wall time at which a member that was not there before first holds probe partitions. */
  private static long awaitNewMemberServing(EmbeddedKafka kafka, Set<String> before, Duration timeout) {
    await("the new instance holds a probe partition").atMost(timeout).pollInterval(Duration.ofMillis(200))
        .until(() -> members(kafka).stream().anyMatch(m -> !before.contains(m.consumerId())
            && m.assignment().topicPartitions().stream().anyMatch(tp -> tp.topic().equals(Topics.PROBE_RESULTS.name()))));
    return System.currentTimeMillis();
  }
}
