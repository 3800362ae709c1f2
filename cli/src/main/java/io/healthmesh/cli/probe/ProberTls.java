package io.healthmesh.cli.probe;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Which servers the prober's TLS checks (HTTPS, HTTP2, SSL) trust: the JDK's roots, the CAs of
 * {@code --ca-file}, or with {@code --insecure} any certificate, as the cloud's health checks do.
 * Endpoints are dialled by address, so a verified certificate must name the check's {@code host}
 * when it has one; without one only its chain is verified.
 */
public final class ProberTls {
  private final X509TrustManager roots;
  private final Map<String, SSLContext> contexts = new ConcurrentHashMap<>();

  private ProberTls(X509TrustManager roots) {
    this.roots = roots;
  }

  /** @param caFile PEM certificates to trust instead of the JDK's roots; null for the JDK's */
  public static ProberTls of(Path caFile, boolean insecure) {
    if (insecure) {
      return new ProberTls(null);
    }
    try {
      KeyStore store = null;
      if (caFile != null) {
        store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caFile)) {
          int i = 0;
          for (var cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
            store.setCertificateEntry("ca-" + i++, cert);
          }
          if (i == 0) {
            throw new IllegalArgumentException("--ca-file " + caFile + " holds no PEM certificate");
          }
        }
      }
      TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      f.init(store);
      for (TrustManager tm : f.getTrustManagers()) {
        if (tm instanceof X509TrustManager x) {
          return new ProberTls(x);
        }
      }
      throw new IllegalStateException("no X.509 trust manager");
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot read --ca-file " + caFile + ": " + e.getMessage(), e);
    }
  }

  public boolean insecure() {
    return roots == null;
  }

  /**
   * A context whose server certificates must chain to the roots and name {@code host} (empty: any
   * name); one per name, made once, as a TLS check runs every interval.
   */
  SSLContext context(String host) {
    return contexts.computeIfAbsent(host, this::newContext);
  }

  private SSLContext newContext(String host) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {new Checking(roots, host)}, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Checks the chain and the name itself: the JDK would check the name against the address it
   * dialled, which a certificate for a service name never holds.
   */
  private static final class Checking extends X509ExtendedTrustManager {
    private final X509TrustManager roots;
    private final String host;

    Checking(X509TrustManager roots, String host) {
      this.roots = roots;
      this.host = host;
    }

    private void check(X509Certificate[] chain, String authType) throws CertificateException {
      if (roots == null) {
        return; // --insecure
      }
      roots.checkServerTrusted(chain, authType);
      if (!host.isEmpty() && !names(chain[0], host)) {
        throw new CertificateException("certificate does not name " + host);
      }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
      check(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
      check(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      check(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
      throw new CertificateException("a prober is never a server");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
      throw new CertificateException("a prober is never a server");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      throw new CertificateException("a prober is never a server");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return roots == null ? new X509Certificate[0] : roots.getAcceptedIssuers();
    }
  }

  /** Whether a DNS name of the certificate's subject alternative names matches {@code host}, a wildcard one label deep. */
  static boolean names(X509Certificate cert, String host) throws CertificateException {
    String wanted = host.toLowerCase(Locale.ROOT);
    var sans = cert.getSubjectAlternativeNames();
    if (sans == null) {
      return false;
    }
    for (List<?> san : sans) {
      if (Integer.valueOf(2).equals(san.get(0))) { // dNSName
        String name = String.valueOf(san.get(1)).toLowerCase(Locale.ROOT);
        if (name.equals(wanted) || (name.startsWith("*.") && wanted.indexOf('.') > 0
            && wanted.substring(wanted.indexOf('.')).equals(name.substring(1)))) {
          return true;
        }
      }
    }
    return false;
  }
}
