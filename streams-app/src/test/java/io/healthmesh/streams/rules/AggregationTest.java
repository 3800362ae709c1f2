package io.healthmesh.streams.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.events.HealthStatus;
import io.healthmesh.streams.rules.Aggregation.Counts;
import io.healthmesh.streams.rules.Aggregation.Thresholds;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure rules of docs/rules.md sections 2 and 3. */
class AggregationTest {
  private static final Thresholds STRICT = new Thresholds(75, 3, false);

  @Test
  void seedExample75PercentMin3_R_AGG_4() {
    assertThat(Aggregation.status(new Counts(3, 1, 0), STRICT)).isEqualTo(HealthStatus.HEALTHY);
    assertThat(Aggregation.status(new Counts(2, 2, 0), STRICT)).isEqualTo(HealthStatus.UNHEALTHY);
  }

  @Test
  void needsBothThresholds_R_AGG_2() {
    assertThat(Aggregation.status(new Counts(2, 0, 0), STRICT)).as("100% but only 2").isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(Aggregation.status(new Counts(3, 2, 0), STRICT)).as("3 but 60%").isEqualTo(HealthStatus.UNHEALTHY);
  }

  @Test
  void defaultsAre60PercentAndOne_R_AGG_1() {
    assertThat(Aggregation.DEFAULT.healthyPercent()).isEqualTo(60);
    assertThat(Aggregation.DEFAULT.minHealthy()).isEqualTo(1);
    assertThat(Aggregation.status(new Counts(3, 2, 0), Aggregation.DEFAULT)).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void decidesUnknownThreeValued_R_AGG_3() {
    // Healthy even if the UNKNOWN one is unhealthy.
    assertThat(Aggregation.status(new Counts(3, 0, 1), STRICT)).isEqualTo(HealthStatus.HEALTHY);
    // Unhealthy even if both UNKNOWN ones are healthy: at most 3 of 5 = 60%.
    assertThat(Aggregation.status(new Counts(1, 2, 2), STRICT)).isEqualTo(HealthStatus.UNHEALTHY);
    // Depends on the UNKNOWN ones.
    assertThat(Aggregation.status(new Counts(2, 0, 2), STRICT)).isEqualTo(HealthStatus.UNKNOWN);
    // A new source with no results yet.
    assertThat(Aggregation.status(new Counts(0, 0, 4), STRICT)).isEqualTo(HealthStatus.UNKNOWN);
  }

  @Test
  void passthroughNeeds20PercentAndEmptyIsHealthy_R_AGG_5() {
    assertThat(Aggregation.status(new Counts(0, 0, 0), Aggregation.PASSTHROUGH_LB)).isEqualTo(HealthStatus.HEALTHY);
    assertThat(Aggregation.status(new Counts(1, 4, 0), Aggregation.PASSTHROUGH_LB)).isEqualTo(HealthStatus.HEALTHY);
    assertThat(Aggregation.status(new Counts(1, 5, 0), Aggregation.PASSTHROUGH_LB)).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(Aggregation.status(new Counts(0, 0, 0), Aggregation.DEFAULT)).isEqualTo(HealthStatus.UNHEALTHY);
  }

  @Test
  void applicationLbHealthyWithOneHealthyBackend_R_DNSHC_3() {
    assertThat(Aggregation.status(new Counts(1, 99, 0), Aggregation.ANY_HEALTHY)).isEqualTo(HealthStatus.HEALTHY);
    assertThat(Aggregation.status(new Counts(0, 5, 0), Aggregation.ANY_HEALTHY)).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(Aggregation.status(new Counts(0, 5, 1), Aggregation.ANY_HEALTHY)).isEqualTo(HealthStatus.UNKNOWN);
  }

  @Test
  void compositeIsAndWithUnknown_R_CH_4() {
    List<HealthStatus> nineHealthyOneUnknown = new java.util.ArrayList<>(Collections.nCopies(9, HealthStatus.HEALTHY));
    nineHealthyOneUnknown.add(HealthStatus.UNKNOWN);
    assertThat(all(nineHealthyOneUnknown)).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(all(List.of(HealthStatus.HEALTHY, HealthStatus.HEALTHY))).isEqualTo(HealthStatus.HEALTHY);
    assertThat(all(List.of(HealthStatus.UNKNOWN, HealthStatus.UNHEALTHY))).isEqualTo(HealthStatus.UNHEALTHY);
  }

  @Test
  void marginCountsHowManyHealthyEndpointsCanFail_beforeThePolicyFails() {
    // R-AGG-4's policy, 75% / 3, over 4 endpoints: 3 healthy is exactly enough
    Thresholds strict = new Thresholds(75, 3, false);
    assertThat(Aggregation.margin(new Counts(4, 0, 0), strict)).isEqualTo(1);
    assertThat(Aggregation.margin(new Counts(3, 1, 0), strict)).isZero();
    assertThat(Aggregation.margin(new Counts(2, 1, 1), strict)).isEqualTo(-1);
    assertThat(Aggregation.margin(new Counts(10, 0, 0), new Thresholds(60, 1, false))).isEqualTo(4);
  }

  private static final HealthStatus H = HealthStatus.HEALTHY;
  private static final HealthStatus U = HealthStatus.UNHEALTHY;
  private static final HealthStatus X = HealthStatus.UNKNOWN;

  private static HealthStatus all(List<HealthStatus> sources) {
    return Aggregation.composite(Aggregation.count(sources), Aggregation.Style.all(sources.size()));
  }

  private static HealthStatus composite(Aggregation.Style style, HealthStatus... sources) {
    return Aggregation.composite(Aggregation.count(List.of(sources)), style);
  }

  @Test
  void allStyleIsTheSeedsAnd_R_CH_4_R_OP_4() {
    Aggregation.Style all = Aggregation.Style.all(3);
    assertThat(composite(all, H, H, H)).isEqualTo(H);
    assertThat(composite(all, H, H, X)).isEqualTo(X);
    assertThat(composite(all, H, X, U)).isEqualTo(U);
    assertThat(composite(Aggregation.Style.all(0))).as("no sources").isEqualTo(X);
  }

  @Test
  void anyStyleIsHealthyWithOneHealthySource_R_OP_4() {
    Aggregation.Style any = new Aggregation.Style("ANY", 1, List.of());
    assertThat(composite(any, U, U, H)).isEqualTo(H);
    assertThat(composite(any, U, X, U)).as("the UNKNOWN one may be HEALTHY").isEqualTo(X);
    assertThat(composite(any, U, U, U)).isEqualTo(U);
  }

  @Test
  void atLeastNIsThreeValuedLikeThePolicies_R_OP_4() {
    Aggregation.Style two = new Aggregation.Style("AT_LEAST_N", 2, List.of());
    assertThat(composite(two, H, H, U)).isEqualTo(H);
    assertThat(composite(two, H, X, U)).as("2 only if the UNKNOWN one is HEALTHY").isEqualTo(X);
    assertThat(composite(two, H, U, U)).isEqualTo(U);
    assertThat(composite(two, H, H, X)).as("enough whatever the UNKNOWN one is").isEqualTo(H);
  }

  @Test
  void criticalSourceMustBeHealthyWhateverTheCount_R_OP_4() {
    assertThat(composite(new Aggregation.Style("ANY", 1, List.of(U)), H, H, U)).isEqualTo(U);
    assertThat(composite(new Aggregation.Style("ANY", 1, List.of(X)), H, H, X)).isEqualTo(X);
    assertThat(composite(new Aggregation.Style("ANY", 1, List.of(H)), H, U, U)).isEqualTo(H);
    // a critical UNHEALTHY wins over UNKNOWN counts too
    assertThat(composite(new Aggregation.Style("AT_LEAST_N", 2, List.of(U)), U, X, X)).isEqualTo(U);
  }

  @Test
  void compositeMarginCountsSourcesThatCanFail_andACriticalOneCapsIt_R_OP_4() {
    Counts twoOfThree = Aggregation.count(List.of(H, H, U));
    assertThat(Aggregation.compositeMargin(twoOfThree, new Aggregation.Style("ANY", 1, List.of()))).isEqualTo(1);
    assertThat(Aggregation.compositeMargin(twoOfThree, Aggregation.Style.all(3))).isEqualTo(-1);
    assertThat(Aggregation.compositeMargin(twoOfThree, new Aggregation.Style("ANY", 1, List.of(H)))).isZero();
    assertThat(Aggregation.compositeMargin(twoOfThree, new Aggregation.Style("ANY", 1, List.of(U)))).isEqualTo(-1);
  }
}
