package io.healthmesh.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class RegistrySettingsTest {

  @Test
  void listsEveryProblem_whenSeveralKeysAreInvalid() {
    Properties p = new Properties();
    p.setProperty(RegistrySettings.PORT, "70000");
    p.setProperty(RegistrySettings.TOPIC, "bad topic!");
    p.setProperty(RegistrySettings.COMPATIBILITY, "SIDEWAYS");
    p.setProperty(RegistrySettings.TIMEOUT_MS, "soon");

    assertThatThrownBy(() -> RegistrySettings.from(p))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("port: 70000 is outside 0..65535")
        .hasMessageContaining("kafkastore.bootstrap.servers: required")
        .hasMessageContaining("kafkastore.topic: 'bad topic!'")
        .hasMessageContaining("schema.compatibility.level: 'SIDEWAYS'")
        .hasMessageContaining("kafkastore.timeout.ms: 'soon' is not a whole number");
  }

  @Test
  void passesKafkastoreClientPropertiesThrough_whenGiven() {
    Properties p = new Properties();
    p.setProperty(RegistrySettings.BOOTSTRAP_SERVERS, "127.0.0.1:9092");
    p.setProperty("kafkastore.security.protocol", "SASL_SSL");

    RegistrySettings settings = RegistrySettings.from(p);

    assertThat(settings.kafkaClientProperties())
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("bootstrap.servers", "127.0.0.1:9092")
        .doesNotContainKey("topic");
    assertThat(settings.host()).isEqualTo("127.0.0.1");
    assertThat(settings.port()).isEqualTo(8081);
    assertThat(settings.topic()).isEqualTo("_schemas");
    assertThat(settings.defaultCompatibility()).isEqualTo("BACKWARD");
  }

  @Test
  void rejectsTheSecuritySettingsWhole_namingEveryProblem_R_SEC_4(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path users = java.nio.file.Files.writeString(dir.resolve("users"), """
        alice: secret, write
        bob: secret, admin
        no colon here
        alice: again, read
        """);
    Properties p = new Properties();
    p.setProperty(RegistrySettings.BOOTSTRAP_SERVERS, "127.0.0.1:9092");
    p.setProperty(RegistrySettings.AUTHENTICATION_METHOD, "BASIC");
    p.setProperty(RegistrySettings.USERS_FILE, users.toString());
    p.setProperty(RegistrySettings.KEYSTORE_LOCATION, dir.resolve("missing.p12").toString());

    assertThatThrownBy(() -> RegistrySettings.from(p)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 2: user 'bob' needs the role read or write, has [admin]")
        .hasMessageContaining("line 3: expected 'name: password, role'")
        .hasMessageContaining("line 4: user 'alice' is defined twice")
        .hasMessageContaining("ssl.keystore.location: cannot read");
  }

  @Test
  void needsAUsersFile_whenAuthenticationIsBasic() {
    Properties p = new Properties();
    p.setProperty(RegistrySettings.BOOTSTRAP_SERVERS, "127.0.0.1:9092");
    p.setProperty(RegistrySettings.AUTHENTICATION_METHOD, "BASIC");
    assertThatThrownBy(() -> RegistrySettings.from(p)).hasMessageContaining("authentication.users.file: required");
    p.setProperty(RegistrySettings.AUTHENTICATION_METHOD, "KERBEROS");
    assertThatThrownBy(() -> RegistrySettings.from(p)).hasMessageContaining("'KERBEROS' is not one of NONE, BASIC");
  }
}
