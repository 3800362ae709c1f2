package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class FailureDetectionTest {
  private static final Duration COMMIT = Duration.ofMillis(100);
  private static final BrokerLimits TUNED = BrokerLimits.of(Map.of(BrokerLimits.MIN_SESSION, 1_000L,
      BrokerLimits.ABORT_CHECK, 1_000L));

  @Test
  void sessionAndTransactionTimeoutFollowTheSetting_whenTheBrokersAllowIt() {
    FailureDetection d = FailureDetection.of(Duration.ofSeconds(3), COMMIT, Map.of(), TUNED);

    assertThat(d.session()).isEqualTo(Duration.ofSeconds(3));
    assertThat(d.heartbeat()).as("survivors notice a member left within one").isEqualTo(Duration.ofMillis(500));
    assertThat(d.transactionTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(d.takeoverBound()).as("the transaction is aborted at the first check after its timeout").isEqualTo(Duration.ofSeconds(4));
    assertThat(d.registryWait()).isLessThan(d.transactionTimeout());
    assertThat(d.adjustments()).isEmpty();
  }

  @Test
  void sessionIsRaisedToTheBrokersMinimum_whenTheyWouldRejectIt() {
    FailureDetection d = FailureDetection.of(Duration.ofSeconds(3), COMMIT, Map.of(), BrokerLimits.KAFKA_DEFAULTS);

    assertThat(d.session()).isEqualTo(Duration.ofSeconds(6));
    assertThat(d.transactionTimeout()).isEqualTo(Duration.ofSeconds(6));
    assertThat(d.takeoverBound()).isEqualTo(Duration.ofSeconds(16));
    assertThat(d.adjustments()).singleElement().asString().contains("group.min.session.timeout.ms");
  }

  @Test
  void transactionTimeoutLeavesRoomForACommit_whenCommitsAreRare() {
    FailureDetection d = FailureDetection.of(Duration.ofSeconds(3), Duration.ofSeconds(5), Map.of(), TUNED);

    assertThat(d.transactionTimeout()).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void explicitKafkaSettingsWin_whenGivenAsStreamsOverrides() {
    FailureDetection d = FailureDetection.of(Duration.ofSeconds(3), COMMIT,
        Map.of("session.timeout.ms", "20000", "producer.transaction.timeout.ms", "30000"), TUNED);

    assertThat(d.session()).isEqualTo(Duration.ofSeconds(20));
    assertThat(d.transactionTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(d.takeoverBound()).isEqualTo(Duration.ofSeconds(31));
  }

  @Test
  void streamsPropertiesCarryTheTimeouts_andOverridesStillWin() {
    Properties p = withFailureDetection("4000");
    Properties streams = StreamsSettings.from(p).streamsProperties(TUNED);

    assertThat(streams.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG)).isEqualTo(4000);
    assertThat(streams.get(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG))).isEqualTo(4000);

    p.setProperty("streams.session.timeout.ms", "12000");
    assertThat(StreamsSettings.from(p).streamsProperties(TUNED).get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG)).isEqualTo("12000");
  }

  @Test
  void settingIsRejected_whenBelowOneSecond() {
    Properties p = withFailureDetection("500");

    assertThatThrownBy(() -> StreamsSettings.from(p)).hasMessageContaining(StreamsSettings.FAILURE_DETECTION_MS);
  }

  @Test
  void brokerLimitsAreAskedWithTheClientsSecuritySettings_whenTheClusterNeedsThem() {
    Properties p = Harness.props();
    p.setProperty("streams.security.protocol", "SASL_SSL");
    p.setProperty("streams.sasl.mechanism", "SCRAM-SHA-512");

    Map<String, Object> admin = HealthStreamsApp.adminConfig(StreamsSettings.from(p));
    assertThat(admin).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("bootstrap.servers", "127.0.0.1:9");
  }

  private static Properties withFailureDetection(String millis) {
    Properties p = Harness.props();
    p.setProperty(StreamsSettings.FAILURE_DETECTION_MS, millis);
    return p;
  }

  @Test
  void brokerLimitsAreRead_fromABrokersDescribedConfig() {
    BrokerLimits limits = BrokerLimits.from(new Config(List.of(new ConfigEntry(BrokerLimits.MIN_SESSION, "2000"),
        new ConfigEntry(BrokerLimits.ABORT_CHECK, "500"))));

    assertThat(limits.minSessionTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(limits.abortCheckInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(limits.maxTransactionTimeout()).isEqualTo(Duration.ofMinutes(15));
    assertThat(limits.known()).isTrue();
  }
}
