package io.healthmesh.edge.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.events.DecisionReason;
import io.healthmesh.events.HealthStatus;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** docs/rules.md section 4 routing rules, with a seeded random source so that every run is the same. */
class RoutingEngineTest {
  /** Chi-square critical values at p = 0.001 for 1 and 2 degrees of freedom. */
  private static final double CHI2_DF1 = 10.83;
  private static final double CHI2_DF2 = 13.82;
  private static final int DRAWS = 100_000;

  private final RoutingEngine engine = new RoutingEngine(Regions.builtIn());
  private final SplittableRandom random = new SplittableRandom(20261130L);

  static Address up(String a) {
    return new Address(a, true, HealthStatus.HEALTHY);
  }

  static Address down(String a) {
    return new Address(a, true, HealthStatus.UNHEALTHY);
  }

  static Address free(String a) {
    return Address.unchecked(a);
  }

  static Bucket wrr(int index, int weight, Address... addresses) {
    return new Bucket("wrr[" + index + "]", weight, "", List.of(addresses));
  }

  static Bucket geo(String region, Address... addresses) {
    return new Bucket("geo[" + region + "]", 0, region, List.of(addresses));
  }

  private Map<String, Integer> draw(Plan plan, String region, int times) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < times; i++) {
      counts.merge(engine.answer(plan, region, random).bucket(), 1, Integer::sum);
    }
    return counts;
  }

  private static double chiSquare(Map<String, Integer> observed, Map<String, Double> expectedShare, int total) {
    double chi2 = 0;
    for (var e : expectedShare.entrySet()) {
      double expected = e.getValue() * total;
      double diff = observed.getOrDefault(e.getKey(), 0) - expected;
      chi2 += diff * diff / expected;
    }
    return chi2;
  }

  @Test
  void splitsInProportionToWeightsPerQuery_R_WRR_2_andZeroWeightGetsNothing_R_WRR_4() {
    Plan plan = new Plan.Wrr(List.of(wrr(0, 0, up("10.0.0.1")), wrr(1, 25, up("10.0.0.2")), wrr(2, 75, up("10.0.0.3"))));
    Map<String, Integer> counts = draw(plan, "us-east1", DRAWS);
    assertThat(counts.get("wrr[0]")).isNull();
    assertThat(chiSquare(counts, Map.of("wrr[1]", 0.25, "wrr[2]", 0.75), DRAWS)).isLessThan(CHI2_DF1);
  }

  @Test
  void splitsEvenly_whenAllWeightsAreZero_R_WRR_3() {
    Plan plan = new Plan.Wrr(List.of(wrr(0, 0, up("10.0.0.1")), wrr(1, 0, free("10.0.0.2")), wrr(2, 0, up("10.0.0.3"))));
    Map<String, Integer> counts = draw(plan, "us-east1", DRAWS);
    assertThat(chiSquare(counts, Map.of("wrr[0]", 1 / 3.0, "wrr[1]", 1 / 3.0, "wrr[2]", 1 / 3.0), DRAWS))
        .isLessThan(CHI2_DF2);
  }

  @Test
  void givesAnUnhealthyItemsShareToTheOthersByWeight_R_WRR_5() {
    Plan plan = new Plan.Wrr(List.of(wrr(0, 25, up("10.0.0.1")), wrr(1, 25, up("10.0.0.2")),
        wrr(2, 50, down("10.0.0.3"), down("10.0.0.4"))));
    Map<String, Integer> counts = draw(plan, "us-east1", DRAWS);
    assertThat(counts.get("wrr[2]")).isNull();
    assertThat(chiSquare(counts, Map.of("wrr[0]", 0.5, "wrr[1]", 0.5), DRAWS)).isLessThan(CHI2_DF1);
  }

  @Test
  void returnsUncheckedZeroWeightItems_whenEveryNonZeroItemFails_R_WRR_6() {
    Plan plan = new Plan.Wrr(List.of(wrr(0, 10, down("10.0.0.1")), wrr(1, 90, down("10.0.0.2")),
        wrr(2, 0, free("10.9.0.1")), wrr(3, 0, free("10.9.0.2"))));
    Map<String, Integer> counts = draw(plan, "us-east1", 10_000);
    assertThat(counts).containsOnlyKeys("wrr[2]", "wrr[3]");
    assertThat(engine.answer(plan, "us-east1", random).reason()).isEqualTo(DecisionReason.FAILOVER);
  }

  @Test
  void returnsNonZeroItemsAsIfHealthyAndZeroWeightNever_whenAllCheckedItemsFail_R_WRR_7() {
    Plan plan = new Plan.Wrr(List.of(wrr(0, 30, down("10.0.0.1")), wrr(1, 70, down("10.0.0.2")),
        wrr(2, 0, down("10.9.0.1"))));
    Map<String, Integer> counts = draw(plan, "us-east1", DRAWS);
    assertThat(counts).doesNotContainKey("wrr[2]");
    assertThat(chiSquare(counts, Map.of("wrr[0]", 0.3, "wrr[1]", 0.7), DRAWS)).isLessThan(CHI2_DF1);
  }

  @Test
  void failsOpenWithEveryAddress_whenEveryItemIsUnhealthy_R_WRR_8() {
    Plan plan = new Plan.Wrr(List.of(wrr(0, 1, down("10.0.0.1"), down("10.0.0.2"))));
    Decision d = engine.answer(plan, "us-east1", random);
    assertThat(d.reason()).isEqualTo(DecisionReason.FAIL_OPEN);
    assertThat(d.answer()).containsExactlyInAnyOrder("10.0.0.1", "10.0.0.2");
  }

  @Test
  void returnsOnlyTheChosenBucketsHealthyAddressesInRandomOrder_R_DNS_4() {
    Plan plan = new Plan.Wrr(List.of(wrr(0, 1, up("10.0.0.1"), down("10.0.0.2"), up("10.0.0.3"), free("10.0.0.4")),
        wrr(1, 0, up("10.1.0.1"))));
    Set<List<String>> orders = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      Decision d = engine.answer(plan, "us-east1", random);
      assertThat(d.answer()).containsExactlyInAnyOrder("10.0.0.1", "10.0.0.3", "10.0.0.4");
      orders.add(d.answer());
    }
    assertThat(orders).hasSize(6); // every order of three addresses occurs
  }

  @Test
  void answersFromThePrimaryWhileItIsHealthy_R_FO_1() {
    Plan plan = failover(0.0, List.of(up("10.1.0.100"), down("10.1.0.101")));
    Decision d = engine.answer(plan, "us-east1", random);
    assertThat(d.reason()).isEqualTo(DecisionReason.PRIMARY);
    assertThat(d.answer()).containsExactly("10.1.0.100");
  }

  @Test
  void answersFromTheGeolocationBackup_whenEveryPrimaryAddressFails_R_FO_2() {
    Plan plan = failover(0.0, List.of(down("10.1.0.100")));
    Decision d = engine.answer(plan, "europe-west2", random);
    assertThat(d.reason()).isEqualTo(DecisionReason.FAILOVER);
    assertThat(d.bucket()).isEqualTo("backup/geo[europe-west1]"); // nearest to europe-west2
    assertThat(d.answer()).containsExactly("10.3.0.100");
  }

  @Test
  void sendsTheTrickleFractionToTheBackup_R_FO_3() {
    Plan plan = failover(0.1, List.of(up("10.1.0.100")));
    Map<String, Integer> counts = draw(plan, "us-east1", DRAWS);
    int backup = DRAWS - counts.get("primary");
    // Binomial(100000, 0.1): sd ~95; 5 sd either side.
    assertThat(backup).isBetween(10_000 - 475, 10_000 + 475);
    assertThat(draw(failover(1.0, List.of(up("10.1.0.100"))), "us-east1", 10_000)).doesNotContainKey("primary");
    assertThat(draw(failover(0.0, List.of(up("10.1.0.100"))), "us-east1", 10_000)).containsOnlyKeys("primary");
  }

  @Test
  void healthChecksBackupLoadBalancersToo_R_FO_4() {
    Plan.Geo backup = new Plan.Geo(List.of(geo("us-east4", down("10.2.0.100")), geo("europe-west1", up("10.3.0.100"))), false);
    Plan plan = new Plan.Failover(new Bucket("primary", 0, "", List.of(down("10.1.0.100"))), backup, 0.0);
    Decision d = engine.answer(plan, "us-east1", random);
    assertThat(d.bucket()).isEqualTo("backup/geo[europe-west1]");
  }

  @Test
  void failsOpenToThePrimary_whenPrimaryAndBackupAllFail_R_FO_5() {
    Decision d = engine.answer(allDown(0.0, false), "us-east1", random);
    assertThat(d.reason()).isEqualTo(DecisionReason.FAIL_OPEN);
    assertThat(d.answer()).containsExactlyInAnyOrder("10.1.0.100", "10.1.0.101");
  }

  @Test
  void keepsTheTrickleSplit_whenPrimaryAndBackupAllFail_R_FO_5() {
    for (boolean fenced : new boolean[] {false, true}) {
      Map<String, Integer> counts = draw(allDown(0.1, fenced), "us-east1", DRAWS);
      assertThat(counts).containsOnlyKeys("primary", "backup/geo[us-east4]");
      // Binomial(100000, 0.1): sd ~95; 5 sd either side.
      assertThat(counts.get("backup/geo[us-east4]")).isBetween(10_000 - 475, 10_000 + 475);
    }
    SplittableRandom source = new SplittableRandom(3);
    Decision backup = engine.answer(allDown(0.1, false), "us-east1", new RandomGenerator() {
      @Override
      public long nextLong() {
        return source.nextLong();
      }

      @Override
      public double nextDouble() {
        return 0.0; // the trickle draw picks the backup
      }
    });
    assertThat(backup.reason()).isEqualTo(DecisionReason.FAIL_OPEN);
    assertThat(backup.answer()).containsExactly("10.2.0.100");
  }

  @Test
  void keepsAManualFailoverOnTheBackup_whenPrimaryAndBackupAllFail_R_FO_5() {
    for (boolean fenced : new boolean[] {false, true}) {
      Map<String, Integer> counts = draw(allDown(1.0, fenced), "us-east1", 10_000);
      assertThat(counts).containsOnlyKeys("backup/geo[us-east4]");
    }
    assertThat(engine.answer(allDown(1.0, false), "us-east1", random).reason()).isEqualTo(DecisionReason.FAIL_OPEN);
  }

  @Test
  void answersTheHealthyPrimary_whenTheTrickleDrawFindsTheBackupDown_R_FO_3() {
    Plan.Geo backup = new Plan.Geo(List.of(geo("us-east4", down("10.2.0.100"))), false);
    Plan plan = new Plan.Failover(new Bucket("primary", 0, "", List.of(up("10.1.0.100"))), backup, 1.0);
    Decision d = engine.answer(plan, "us-east1", random);
    assertThat(d.reason()).isEqualTo(DecisionReason.PRIMARY);
    assertThat(d.answer()).containsExactly("10.1.0.100");
  }

  @Test
  void keepsAMixedItemEligibleWithItsUncheckedAddress_whenItsCheckedOneFails_R_DNS_4() {
    Plan plan = new Plan.Wrr(List.of(wrr(0, 50, down("10.0.0.1"), free("10.0.0.2")), wrr(1, 50, up("10.0.1.1"))));
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < DRAWS; i++) {
      Decision d = engine.answer(plan, "us-east1", random);
      counts.merge(d.bucket(), 1, Integer::sum);
      if (d.bucket().equals("wrr[0]")) {
        assertThat(d.answer()).containsExactly("10.0.0.2");
        assertThat(d.reason()).isEqualTo(DecisionReason.WEIGHT_DRAW);
      }
    }
    assertThat(chiSquare(counts, Map.of("wrr[0]", 0.5, "wrr[1]", 0.5), DRAWS)).isLessThan(CHI2_DF1);
    // Alone, the mixed item still answers with its unchecked address rather than failing open.
    Decision alone = engine.answer(new Plan.Wrr(List.of(wrr(0, 1, down("10.0.0.1"), free("10.0.0.2")))), "us-east1", random);
    assertThat(alone.reason()).isEqualTo(DecisionReason.WEIGHT_DRAW);
    assertThat(alone.answer()).containsExactly("10.0.0.2");
  }

  @Test
  void appliesOneEligibilityRuleToEveryPolicy_R_DNS_4() {
    Bucket mixed = new Bucket("x", 1, "us-east1", List.of(down("10.0.0.1"), free("10.0.0.2")));
    Bucket checkedDown = new Bucket("y", 1, "us-east1", List.of(down("10.0.0.1"), down("10.0.0.3")));
    Bucket unknown = new Bucket("z", 1, "us-east1", List.of(new Address("10.0.0.4", true, HealthStatus.UNKNOWN)));
    assertThat(mixed.eligible()).isTrue();
    assertThat(checkedDown.eligible()).isFalse();
    assertThat(unknown.eligible()).isTrue();
    assertThat(new Bucket("empty", 1, "", List.of()).eligible()).isFalse();
    Plan.Geo backup = new Plan.Geo(List.of(geo("us-east4", up("10.2.0.100"))), false);
    Decision primary = engine.answer(new Plan.Failover(new Bucket("primary", 0, "", mixed.addresses()), backup, 0.0),
        "us-east1", random);
    assertThat(primary.reason()).isEqualTo(DecisionReason.PRIMARY);
    assertThat(primary.answer()).containsExactly("10.0.0.2");
  }

  @Test
  void answersNothing_whenEveryItemIsDownAndTheRecordSetFailsClosed_R_OP_1() {
    Plan wrr = new Plan.Wrr(List.of(wrr(0, 50, down("10.0.0.1")), wrr(1, 50, down("10.0.0.2"))));
    Decision closed = engine.answer(new Plan.FailClosed(wrr, List.of()), "us-east1", random);
    assertThat(closed.reason()).isEqualTo(DecisionReason.FAIL_CLOSED);
    assertThat(closed.answer()).isEmpty();
    assertThat(closed.considered()).as("the addresses it judged stay visible to explain and the log").isNotEmpty();

    for (boolean fenced : List.of(false, true)) {
      Decision failover = engine.answer(new Plan.FailClosed(allDown(0.1, fenced), List.of()), "us-east1", random);
      assertThat(failover.reason()).as("fenced " + fenced).isEqualTo(DecisionReason.FAIL_CLOSED);
      assertThat(failover.answer()).isEmpty();
    }
    Plan fencedGeo = new Plan.Geo(List.of(geo("us-east1", down("10.0.0.1")), geo("europe-west1", down("10.0.0.2"))), true);
    assertThat(engine.answer(new Plan.FailClosed(fencedGeo, List.of()), "us-east1", random).reason())
        .as("a fence with every region down fails closed too").isEqualTo(DecisionReason.FAIL_CLOSED);
  }

  @Test
  void answersTheFallback_whenEveryItemIsDown_R_OP_1() {
    Plan geo = new Plan.Geo(List.of(geo("us-east1", down("10.0.0.1")), geo("europe-west1", down("10.0.0.2"))), false);
    Decision d = engine.answer(new Plan.FailClosed(geo, List.of("192.0.2.9", "192.0.2.10")), "us-east1", random);
    assertThat(d.reason()).isEqualTo(DecisionReason.FALLBACK);
    assertThat(d.answer()).containsExactlyInAnyOrder("192.0.2.9", "192.0.2.10");
  }

  @Test
  void answersAsTheSeedDoes_whileAnItemIsUp_evenWhenTheRecordSetFailsClosed_R_OP_1() {
    Plan wrr = new Plan.Wrr(List.of(wrr(0, 50, down("10.0.0.1")), wrr(1, 50, up("10.0.0.2"))));
    for (int i = 0; i < 100; i++) {
      Decision d = engine.answer(new Plan.FailClosed(wrr, List.of("192.0.2.9")), "us-east1", random);
      assertThat(d.answer()).containsExactly("10.0.0.2");
    }
    Plan fenced = new Plan.Geo(List.of(geo("us-east1", down("10.0.0.1")), geo("europe-west1", up("10.0.0.2"))), true);
    assertThat(engine.answer(new Plan.FailClosed(fenced, List.of()), "us-east1", random).reason())
        .as("a fence is no fail-open: another region is up").isEqualTo(DecisionReason.FENCE);
  }

  private static Plan allDown(double trickle, boolean fenced) {
    Plan.Geo backup = new Plan.Geo(List.of(geo("us-east4", down("10.2.0.100")), geo("europe-west1", down("10.3.0.100"))),
        fenced);
    return new Plan.Failover(new Bucket("primary", 0, "", List.of(down("10.1.0.100"), down("10.1.0.101"))), backup, trickle);
  }

  @Test
  void answersWithTheItemOfTheSourceRegion_R_GEO_1() {
    Plan plan = new Plan.Geo(List.of(geo("us-east1", up("10.1.0.1")), geo("europe-west1", up("10.3.0.1"))), false);
    assertThat(engine.answer(plan, "europe-west1", random).answer()).containsExactly("10.3.0.1");
    Decision d = engine.answer(plan, "us-east1", random);
    assertThat(d.answer()).containsExactly("10.1.0.1");
    assertThat(d.reason()).isEqualTo(DecisionReason.GEO_MATCH);
  }

  @Test
  void answersWithTheNearestItem_whenNoneIsForTheSourceRegion_R_GEO_2() {
    Plan plan = new Plan.Geo(List.of(geo("us-west1", up("10.4.0.1")), geo("us-east4", up("10.2.0.1")),
        geo("europe-west1", up("10.3.0.1"))), false);
    Decision d = engine.answer(plan, "us-east1", random);
    assertThat(d.answer()).containsExactly("10.2.0.1");
    assertThat(d.reason()).isEqualTo(DecisionReason.GEO_FALLBACK);
    assertThat(engine.answer(plan, "europe-west3", random).answer()).containsExactly("10.3.0.1");
  }

  @Test
  void failsOverToTheNextNearestHealthyItem_whenEveryCheckedAddressFails_R_GEO_3() {
    Plan plan = new Plan.Geo(List.of(geo("us-east1", down("10.1.0.1")), geo("us-east4", down("10.2.0.1")),
        geo("europe-west1", up("10.3.0.1")), geo("us-west1", up("10.4.0.1"))), false);
    Decision d = engine.answer(plan, "us-east1", random);
    assertThat(d.answer()).containsExactly("10.4.0.1"); // us-west1 is nearer to us-east1 than Belgium
    assertThat(d.reason()).isEqualTo(DecisionReason.GEO_FALLBACK);
  }

  @Test
  void returnsTheUncheckedAddressesAndDoesNotFailOver_whenAMixedItemsCheckedOnesFail_R_GEO_4() {
    Plan plan = new Plan.Geo(List.of(geo("us-east1", down("10.1.0.1"), free("10.1.0.2")), geo("us-east4", up("10.2.0.1"))), false);
    Decision d = engine.answer(plan, "us-east1", random);
    assertThat(d.answer()).containsExactly("10.1.0.2");
    assertThat(d.bucket()).isEqualTo("geo[us-east1]");
  }

  @Test
  void neverFailsOverAcrossRegions_whenFenced_R_GEO_5() {
    Plan plan = new Plan.Geo(List.of(geo("us-east1", down("10.1.0.1"), down("10.1.0.2")), geo("us-east4", up("10.2.0.1"))), true);
    for (int i = 0; i < 100; i++) {
      Decision d = engine.answer(plan, "us-east1", random);
      assertThat(d.answer()).containsExactlyInAnyOrder("10.1.0.1", "10.1.0.2");
      assertThat(d.reason()).isEqualTo(DecisionReason.FENCE);
    }
  }

  @Test
  void returnsOnlyTheItemsHealthyAddresses_R_GEO_6() {
    Plan plan = new Plan.Geo(List.of(geo("us-east1", down("10.1.0.1"), up("10.1.0.2"), up("10.1.0.3"))), false);
    assertThat(engine.answer(plan, "us-east1", random).answer()).containsExactlyInAnyOrder("10.1.0.2", "10.1.0.3");
  }

  @Test
  void returnsStaticRecordsAsTheyAre_whenThereIsNoPolicy() {
    Decision d = engine.answer(new Plan.Static(List.of("v=spf1 -all")), "us-east1", random);
    assertThat(d.answer()).containsExactly("v=spf1 -all");
    assertThat(d.reason()).isEqualTo(DecisionReason.STATIC);
  }

  @Test
  void isAPureFunctionOfItsInputs_whenTheSeedIsTheSame() {
    Plan plan = new Plan.Wrr(List.of(wrr(0, 3, up("10.0.0.1"), up("10.0.0.2")), wrr(1, 7, up("10.0.0.3"))));
    List<Decision> first = Arrays.asList(new Decision[50]);
    SplittableRandom a = new SplittableRandom(7);
    SplittableRandom b = new SplittableRandom(7);
    for (int i = 0; i < 50; i++) {
      first.set(i, engine.answer(plan, "us-east1", a));
      assertThat(engine.answer(plan, "us-east1", b)).isEqualTo(first.get(i));
    }
  }

  private static Plan failover(double trickle, List<Address> primary) {
    Plan.Geo backup = new Plan.Geo(List.of(geo("us-east4", up("10.2.0.100")), geo("europe-west1", up("10.3.0.100"))), false);
    return new Plan.Failover(new Bucket("primary", 0, "", primary), backup, trickle);
  }
}
