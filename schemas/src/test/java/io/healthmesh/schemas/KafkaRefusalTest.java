package io.healthmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

/** How a refusal is told (R-SEC-2). */
class KafkaRefusalTest {
  private static final KafkaAccess PROBER = KafkaAccess.of("prober").writing(List.of("probe-results"));
  private static final Map<String, Object> SCRAM = Map.of("security.protocol", "SASL_SSL",
      "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"probe-eu\""
          + " password=\"x\";");

  @Test
  void findsTheRefusal_whenItIsWrappedInOtherExceptions() {
    TopicAuthorizationException refusal = new TopicAuthorizationException(Set.of("probe-results"));
    Exception wrapped = new IllegalStateException("cannot start", new KafkaException(new ExecutionException(refusal)));
    assertThat(KafkaRefusal.of(wrapped)).containsSame(refusal);
  }

  @Test
  void findsNothing_whenTheBrokerIsMerelyAway() {
    assertThat(KafkaRefusal.of(new IllegalStateException(new TimeoutException("no broker")))).isEmpty();
  }

  @Test
  void namesThePrincipalWhatWasRefusedAndWhatTheComponentNeeds_whenExplained() {
    String why = KafkaRefusal.explain(new TopicAuthorizationException(Set.of("probe-results")), PROBER, SCRAM);
    assertThat(why).startsWith("Kafka refused User:probe-eu (prober): Not authorized to access topics: [probe-results]")
        .contains("prober writes [probe-results]").endsWith("healthctl acls --component prober prints its ACLs)");
  }

  @Test
  void namesTheGroup_whenAGroupIsRefused() {
    String why = KafkaRefusal.explain(new GroupAuthorizationException("Not authorized to access group: app", "app"),
        PROBER, SCRAM);
    assertThat(why).contains("Not authorized to access group: app [consumer group app]");
  }

  @Test
  void saysItCouldNotAuthenticate_whenThePasswordIsWrong() {
    String why = KafkaRefusal.explain(new SaslAuthenticationException("invalid credentials"), PROBER, SCRAM);
    assertThat(why).startsWith("Kafka could not authenticate User:probe-eu (prober): invalid credentials");
  }

  @Test
  void tellsThePrincipal_fromTheClientSettings() {
    assertThat(KafkaRefusal.principal(Map.of())).isEqualTo("User:ANONYMOUS");
    assertThat(KafkaRefusal.principal(SCRAM)).isEqualTo("User:probe-eu");
    assertThat(KafkaRefusal.principal(Map.of("security.protocol", "SSL", "ssl.keystore.location", "/k.p12")))
        .isEqualTo("the principal of the certificate in /k.p12");
  }
}
