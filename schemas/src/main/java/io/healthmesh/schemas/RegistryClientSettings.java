package io.healthmesh.schemas;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * How a client authenticates to a secured schema registry, from Confluent's client keys, which
 * live among a Kafka client's settings: HTTP basic authentication ({@code basic.auth.credentials.source}
 * USER_INFO with {@code basic.auth.user.info} {@code user:password}, or URL with the credentials in
 * the registry URL) and the CA to trust for HTTPS ({@code schema.registry.ssl.truststore.*}).
 *
 * @param authorization the {@code Authorization} header's value, or null to send none
 * @param tls the context that trusts the registry's certificate, or null for the JDK's default trust
 */
public record RegistryClientSettings(String authorization, SSLContext tls) {
  public static final String CREDENTIALS_SOURCE = "basic.auth.credentials.source";
  public static final String USER_INFO = "basic.auth.user.info";
  public static final String TRUSTSTORE_LOCATION = "schema.registry.ssl.truststore.location";
  public static final String TRUSTSTORE_PASSWORD = "schema.registry.ssl.truststore.password";
  public static final String TRUSTSTORE_TYPE = "schema.registry.ssl.truststore.type";
  /** Confluent's serdes also take the basic-auth keys with this prefix. */
  private static final String PREFIX = "schema.registry.";

  public static final RegistryClientSettings NONE = new RegistryClientSettings(null, null);

  /**
   * Reads the keys from {@code settings} (a Kafka client's, or a serde's configuration); the
   * credentials of a URL-sourced client come from {@code urls}.
   *
   * @throws IllegalArgumentException naming the key that is wrong
   */
  public static RegistryClientSettings from(String urls, Map<String, ?> settings) {
    String source = value(settings, CREDENTIALS_SOURCE);
    String userInfo = value(settings, USER_INFO);
    String credentials = switch (source == null ? (userInfo == null ? "NONE" : "USER_INFO")
        : source.toUpperCase(Locale.ROOT)) {
      case "NONE" -> null;
      case "USER_INFO" -> {
        if (userInfo == null || !userInfo.contains(":")) {
          throw new IllegalArgumentException(USER_INFO + " must be user:password when " + CREDENTIALS_SOURCE
              + " is USER_INFO");
        }
        yield userInfo;
      }
      case "URL" -> {
        String info = URI.create(urls.split(",")[0].trim()).getRawUserInfo();
        if (info == null || !info.contains(":")) {
          throw new IllegalArgumentException(CREDENTIALS_SOURCE + " is URL but the schema registry URL has no"
              + " user:password@");
        }
        yield URLDecoder.decode(info, StandardCharsets.UTF_8);
      }
      default -> throw new IllegalArgumentException(CREDENTIALS_SOURCE + ": '" + source
          + "' is not one of USER_INFO, URL");
    };
    String authorization = credentials == null ? null
        : "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    return new RegistryClientSettings(authorization, trust(settings));
  }

  private static SSLContext trust(Map<String, ?> settings) {
    String location = value(settings, TRUSTSTORE_LOCATION);
    if (location == null) {
      return null;
    }
    String password = value(settings, TRUSTSTORE_PASSWORD);
    String type = value(settings, TRUSTSTORE_TYPE);
    try (InputStream in = Files.newInputStream(Path.of(location))) {
      KeyStore store = KeyStore.getInstance(type == null ? "PKCS12" : type);
      store.load(in, password == null ? null : password.toCharArray());
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(TRUSTSTORE_LOCATION + ": cannot read " + location + ": " + e.getMessage(), e);
    }
  }

  private static String value(Map<String, ?> settings, String key) {
    Object v = settings.get(key);
    if (v == null && !key.startsWith(PREFIX)) {
      v = settings.get(PREFIX + key);
    }
    return v == null || v.toString().isBlank() ? null : v.toString();
  }
}
