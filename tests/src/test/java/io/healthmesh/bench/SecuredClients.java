package io.healthmesh.bench;

import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.kafka.embedded.TestCa;
import io.healthmesh.schemas.KafkaAccess;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/**
 * A benchmark's client on the SASL_SSL listener of a secured embedded broker: a SCRAM user granted
 * exactly a component's ACLs, so that TLS, SASL and the authorizer are all on the measured path.
 */
final class SecuredClients {
  /** {@code -Dbench.secured=true}: run the component over SASL_SSL too, beside plaintext, in the same run. */
  static final boolean SECURED = Boolean.getBoolean("bench.secured");

  private SecuredClients() {}

  /** Creates {@code user} with {@code access}'s ACLs; returns its client settings (without bootstrap servers). */
  static Map<String, Object> grant(EmbeddedKafka kafka, TestCa tls, String user, KafkaAccess access) throws Exception {
    kafka.createUser(user, user + "-secret");
    try (Admin admin = kafka.admin()) {
      admin.createAcls(access.bindings("User:" + user)).all().get(30, TimeUnit.SECONDS);
    }
    return tls.clientSettings(user, user + "-secret");
  }
}
