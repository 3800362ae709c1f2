package io.healthmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RegistryClientSettingsTest {
  @Test
  void sendsNoCredentials_whenNoneAreConfigured() {
    assertThat(RegistryClientSettings.from("http://r:8081", Map.of())).isEqualTo(RegistryClientSettings.NONE);
  }

  @Test
  void sendsTheUserInfo_withOrWithoutTheSchemaRegistryPrefix() {
    assertThat(RegistryClientSettings.from("http://r", Map.of("basic.auth.user.info", "u:p")).authorization())
        .isEqualTo(basic("u:p"));
    assertThat(RegistryClientSettings.from("http://r", Map.of("schema.registry.basic.auth.user.info", "u:p:x"))
        .authorization()).isEqualTo(basic("u:p:x"));
  }

  @Test
  void takesTheCredentialsFromTheUrl_whenTheSourceIsUrl() {
    assertThat(RegistryClientSettings.from("https://u:p%40ss@r:8081", Map.of("basic.auth.credentials.source", "URL"))
        .authorization()).isEqualTo(basic("u:p@ss"));
  }

  @Test
  void namesTheWrongKey_whenTheSettingsCannotWork() {
    assertThatThrownBy(() -> RegistryClientSettings.from("http://r", Map.of("basic.auth.credentials.source",
        "USER_INFO"))).hasMessageContaining("basic.auth.user.info must be user:password");
    assertThatThrownBy(() -> RegistryClientSettings.from("http://r", Map.of("basic.auth.credentials.source",
        "SASL_INHERIT"))).hasMessageContaining("'SASL_INHERIT' is not one of USER_INFO, URL");
    assertThatThrownBy(() -> RegistryClientSettings.from("http://r", Map.of("basic.auth.credentials.source", "URL")))
        .hasMessageContaining("has no user:password@");
    assertThatThrownBy(() -> RegistryClientSettings.from("http://r", Map.of(
        "schema.registry.ssl.truststore.location", "/nonexistent.p12")))
        .hasMessageContaining("schema.registry.ssl.truststore.location: cannot read /nonexistent.p12");
  }

  private static String basic(String userInfo) {
    return "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
  }
}
