package io.healthmesh.cli.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.config.HealthCheckSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TargetTest {
  private static final long INTERVAL = 30_000;

  private static List<Target> service(String name, int endpoints) {
    List<Target> targets = new ArrayList<>();
    for (int i = 0; i < endpoints; i++) {
      targets.add(new Target(name, "vm-" + i, "10.0.0." + (i % 250), 8080, HealthCheckSpec.newBuilder().build()));
    }
    return targets;
  }

  @Test
  void phases_spreadAServicesEndpointsOverTheInterval_R_PQ_5() {
    List<Target> targets = service("web-0", 1_000);
    int[] perSecond = new int[(int) (INTERVAL / 1000)];
    for (Target t : targets) {
      long phase = t.phaseMillis("us-east1/prober-a", INTERVAL);
      assertThat(phase).isBetween(0L, INTERVAL - 1);
      perSecond[(int) (phase / 1000)]++;
    }
    // 1,000 checks over 30 s is 33 a second; a burst would put hundreds in one second
    for (int n : perSecond) {
      assertThat(n).isBetween(10, 65);
    }
  }

  @Test
  void phases_areStableForAProber_andDifferBetweenProbers_R_PQ_5() {
    List<Target> targets = service("web-0", 200);
    int same = 0;
    for (Target t : targets) {
      assertThat(t.phaseMillis("a", INTERVAL)).isEqualTo(t.phaseMillis("a", INTERVAL));
      // two probers of a fleet check an endpoint within a second of each other by chance only
      if (Math.abs(t.phaseMillis("us-east1/p", INTERVAL) - t.phaseMillis("europe-west1/p", INTERVAL)) < 1_000) {
        same++;
      }
    }
    assertThat(same).isLessThan(40);
  }
}
