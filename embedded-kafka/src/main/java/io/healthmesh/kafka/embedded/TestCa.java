package io.healthmesh.kafka.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority made on the spot, and a certificate it signs for a broker on
 * 127.0.0.1, with the JDK's own keytool: TLS for a test or a demo, with nothing to install. Clients
 * trust {@link #truststore()}; the broker serves {@link #keystore()}. Both are PKCS12.
 */
public record TestCa(Path keystore, Path truststore, String password) {

  /** Makes the CA and the broker's key and certificate in {@code dir}. */
  public static TestCa make(Path dir) {
    String password = "healthmesh-test";
    Path ca = dir.resolve("ca.p12");
    Path keystore = dir.resolve("broker.p12");
    Path truststore = dir.resolve("truststore.p12");
    Path caCert = dir.resolve("ca.pem");
    Path request = dir.resolve("broker.csr");
    Path signed = dir.resolve("broker.pem");
    keytool(dir, "-genkeypair", "-alias", "ca", "-dname", "CN=healthmesh test CA", "-keyalg", "EC", "-groupname",
        "secp256r1", "-validity", "2", "-ext", "bc:c", "-keystore", ca, "-storepass", password);
    keytool(dir, "-exportcert", "-rfc", "-alias", "ca", "-keystore", ca, "-storepass", password, "-file", caCert);
    keytool(dir, "-genkeypair", "-alias", "broker", "-dname", "CN=127.0.0.1", "-keyalg", "EC", "-groupname",
        "secp256r1", "-validity", "2", "-keystore", keystore, "-storepass", password);
    keytool(dir, "-certreq", "-alias", "broker", "-keystore", keystore, "-storepass", password, "-file", request);
    keytool(dir, "-gencert", "-alias", "ca", "-keystore", ca, "-storepass", password, "-infile", request,
        "-outfile", signed, "-rfc", "-validity", "2", "-ext", "san=ip:127.0.0.1,dns:localhost");
    keytool(dir, "-importcert", "-noprompt", "-alias", "ca", "-keystore", keystore, "-storepass", password,
        "-file", caCert);
    keytool(dir, "-importcert", "-alias", "broker", "-keystore", keystore, "-storepass", password, "-file", signed);
    keytool(dir, "-importcert", "-noprompt", "-alias", "ca", "-keystore", truststore, "-storepass", password,
        "-file", caCert);
    return new TestCa(keystore, truststore, password);
  }

  /** The CA's certificate in PEM, for clients that take a CA file (librdkafka, Python, curl). */
  public Path caCertificate() {
    return keystore.resolveSibling("ca.pem");
  }

  private static void keytool(Path dir, Object... args) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-storetype", "PKCS12"));
    for (Object a : args) {
      command.add(a.toString());
    }
    try {
      Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run keytool: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted making test certificates", e);
    }
  }

  /** Client settings that trust this CA over SASL_SSL with SCRAM-SHA-512 as {@code user}. */
  public Map<String, Object> clientSettings(String user, String userPassword) {
    return Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512",
        "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
            + "\" password=\"" + userPassword + "\";",
        "ssl.truststore.location", truststore.toString(), "ssl.truststore.password", password,
        "ssl.truststore.type", "PKCS12");
  }
}
