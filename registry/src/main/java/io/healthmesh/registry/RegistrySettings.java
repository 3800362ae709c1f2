package io.healthmesh.registry;

import io.healthmesh.observability.MetricsSettings;
import io.healthmesh.settings.SettingsReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * The registry's configuration, validated once at start-up. Keys follow Confluent's registry
 * where one exists, so a properties file reads the same for both.
 *
 * @param host address to listen on
 * @param port port to listen on; 0 picks a free one
 * @param bootstrapServers Kafka that holds the schemas topic
 * @param topic the compacted schemas topic
 * @param replicationFactor of the schemas topic when the registry creates it
 * @param defaultCompatibility level of subjects with none of their own while none is set globally
 * @param timeout for reads and writes of the schemas topic
 * @param kafkaClientOverrides client properties from {@code kafkastore.*} keys (SASL, TLS, ...)
 * @param metrics where {@code /metrics} and {@code /health/*} are served
 * @param users who may read and who may write, when {@code authentication.method} is BASIC; else null
 * @param tls the REST API's certificate, when {@code ssl.keystore.location} is set (HTTPS); else null
 */
public record RegistrySettings(String host, int port, String bootstrapServers, String topic,
    short replicationFactor, String defaultCompatibility, Duration timeout,
    Map<String, String> kafkaClientOverrides, MetricsSettings metrics, RegistryUsers users, SSLContext tls) {

  public static final String HOST = "host";
  public static final String PORT = "port";
  public static final String BOOTSTRAP_SERVERS = "kafkastore.bootstrap.servers";
  public static final String TOPIC = "kafkastore.topic";
  public static final String REPLICATION_FACTOR = "kafkastore.topic.replication.factor";
  public static final String TIMEOUT_MS = "kafkastore.timeout.ms";
  public static final String COMPATIBILITY = "schema.compatibility.level";
  public static final String AUTHENTICATION_METHOD = "authentication.method";
  public static final String USERS_FILE = "authentication.users.file";
  public static final String KEYSTORE_LOCATION = "ssl.keystore.location";
  public static final String KEYSTORE_PASSWORD = "ssl.keystore.password";
  public static final String KEYSTORE_TYPE = "ssl.keystore.type";
  public static final String KEY_PASSWORD = "ssl.key.password";
  /** Other {@code kafkastore.*} keys go to the Kafka clients with this prefix removed. */
  public static final String CLIENT_PREFIX = "kafkastore.";

  public RegistrySettings {
    kafkaClientOverrides = Map.copyOf(kafkaClientOverrides);
  }

  /** Settings for a registry on loopback, free port, against {@code bootstrapServers}. */
  public static RegistrySettings forTests(String bootstrapServers) {
    Properties p = new Properties();
    p.setProperty(BOOTSTRAP_SERVERS, bootstrapServers);
    p.setProperty(PORT, "0");
    return from(p);
  }

  /**
   * Reads and checks every key; an invalid configuration is rejected whole, naming each problem.
   *
   * @throws IllegalArgumentException listing every problem
   */
  public static RegistrySettings from(Properties p) {
    SettingsReader read = new SettingsReader(p);
    String host = read.string(HOST, "127.0.0.1");
    int port = read.integer(PORT, 8081, 0, 65535);
    String bootstrap = read.required(BOOTSTRAP_SERVERS, "host:port of a Kafka broker");
    String topic = read.string(TOPIC, "_schemas");
    if (!topic.matches("[a-zA-Z0-9._-]{1,249}")) {
      read.problem(TOPIC + ": '" + topic + "' is not a valid topic name");
    }
    int replication = read.integer(REPLICATION_FACTOR, 1, 1, Short.MAX_VALUE);
    int timeoutMs = read.integer(TIMEOUT_MS, 10_000, 100, Integer.MAX_VALUE);
    String level = read.string(COMPATIBILITY, "BACKWARD");
    try {
      CompatibilityLevel.parse(level);
    } catch (RegistryError e) {
      read.problem(COMPATIBILITY + ": '" + level + "' is not one of NONE, BACKWARD, BACKWARD_TRANSITIVE, "
          + "FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE");
    }
    Map<String, String> overrides = new HashMap<>();
    for (String key : p.stringPropertyNames()) {
      if (key.startsWith(CLIENT_PREFIX) && !List.of(BOOTSTRAP_SERVERS, TOPIC, REPLICATION_FACTOR, TIMEOUT_MS).contains(key)) {
        overrides.put(key.substring(CLIENT_PREFIX.length()), p.getProperty(key));
      }
    }
    MetricsSettings metrics = MetricsSettings.from(read, 9404);
    RegistryUsers users = null;
    String method = read.string(AUTHENTICATION_METHOD, "NONE").toUpperCase(Locale.ROOT);
    if (method.equals("BASIC")) {
      String file = read.required(USERS_FILE, "a file of 'name: password, role' lines (roles read, write)");
      if (!file.isEmpty()) {
        List<String> problems = new ArrayList<>();
        users = RegistryUsers.read(Path.of(file), problems);
        problems.forEach(problem -> read.problem(USERS_FILE + ": " + problem));
      }
    } else if (!method.equals("NONE")) {
      read.problem(AUTHENTICATION_METHOD + ": '" + method + "' is not one of NONE, BASIC");
    }
    SSLContext tls = null;
    String keystore = read.string(KEYSTORE_LOCATION, "");
    if (!keystore.isEmpty()) {
      String password = read.string(KEYSTORE_PASSWORD, "");
      try {
        tls = serverTls(Path.of(keystore), read.string(KEYSTORE_TYPE, "PKCS12"), password,
            read.string(KEY_PASSWORD, password));
      } catch (IOException | GeneralSecurityException e) {
        read.problem(KEYSTORE_LOCATION + ": cannot read " + keystore + ": " + e.getMessage());
      }
    }
    read.check("schema registry");
    return new RegistrySettings(host, port, bootstrap, topic, (short) replication, level.toUpperCase(Locale.ROOT),
        Duration.ofMillis(timeoutMs), overrides, metrics, users, tls);
  }

  private static SSLContext serverTls(Path keystore, String type, String password, String keyPassword)
      throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance(type);
    try (InputStream in = Files.newInputStream(keystore)) {
      store.load(in, password.toCharArray());
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, keyPassword.toCharArray());
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    return context;
  }

  /** Properties for every Kafka client of the registry. */
  Map<String, Object> kafkaClientProperties() {
    Map<String, Object> props = new HashMap<>(kafkaClientOverrides);
    props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return props;
  }
}
