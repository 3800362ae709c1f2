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
}
