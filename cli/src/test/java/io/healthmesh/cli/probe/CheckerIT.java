package io.healthmesh.cli.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.healthmesh.config.HealthCheckProtocol;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.kafka.embedded.TestCa;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * R-PQ-5: each kind of check against a real local server of that kind: the JDK's HTTP and HTTPS
 * servers (a certificate from a CA made on the spot), Jetty speaking HTTP/2 over TLS, and a gRPC
 * server with the standard health service.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CheckerIT {
  private static final String BODY = "{\"status\":\"ok\",\"build\":\"" + "x".repeat(2_000) + "\"}";
  private final List<String> sniSeen = new CopyOnWriteArrayList<>();
  private final List<String> hostsSeen = new CopyOnWriteArrayList<>();
  private TestCa ca;
  private HttpServer http;
  private HttpsServer https;
  private org.eclipse.jetty.server.Server h2;
  private Server grpc;

  @BeforeAll
  void start() throws Exception {
    Path dir = Files.createTempDirectory("checker-it");
    ca = TestCa.make(dir);
    http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext("/", exchange -> {
      hostsSeen.add(exchange.getRequestHeaders().getFirst("Host"));
      int status = exchange.getRequestURI().getPath().equals("/broken") ? 503 : 200;
      byte[] body = (exchange.getRequestURI().getPath().equals("/late") ? "x".repeat(1_100) + "ok" : BODY)
          .getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    http.start();
    https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    https.setHttpsConfigurator(new HttpsConfigurator(serverContext()));
    https.createContext("/", exchange -> {
      byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    https.start();
    h2 = jettyH2();
    HealthStatusManager health = new HealthStatusManager();
    health.setStatus("", ServingStatus.SERVING);
    health.setStatus("orders.v1.Orders", ServingStatus.SERVING);
    health.setStatus("payments.v1.Payments", ServingStatus.NOT_SERVING);
    grpc = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(health.getHealthService())
        .build().start();
  }

  @AfterAll
  void stop() throws Exception {
    http.stop(0);
    https.stop(0);
    h2.stop();
    grpc.shutdownNow();
  }

  private static HealthCheckSpec.Builder spec(HealthCheckProtocol protocol) {
    return HealthCheckSpec.newBuilder().setProtocol(protocol).setTimeoutSec(5);
  }

  private static Checker.Outcome check(Checker checker, int port, HealthCheckSpec spec) {
    return checker.check(new Target("svc", "vm-1", "127.0.0.1", port, spec));
  }

  private Checker verifying() {
    return new Checker(ProberTls.of(ca.caCertificate(), false));
  }

  @Test
  void http_matchesStatusAndTheBodysFirstKilobyte_R_PQ_5() {
    Checker checker = new Checker(ProberTls.of(null, false));
    int port = http.getAddress().getPort();
    assertThat(check(checker, port, spec(HealthCheckProtocol.HTTP).setResponse("\"status\":\"ok\"").build()))
        .satisfies(o -> assertThat(o.success()).as(o.detail()).isTrue());
    assertThat(check(checker, port, spec(HealthCheckProtocol.HTTP).setRequestPath("/late").setResponse("ok").build()))
        .satisfies(o -> {
          assertThat(o.success()).as("beyond the first 1,024 bytes").isFalse();
          assertThat(o.detail()).contains("first 1024 bytes of the body lack 'ok'");
        });
    assertThat(check(checker, port, spec(HealthCheckProtocol.HTTP).setRequestPath("/broken").build()).detail())
        .isEqualTo("HTTP 503, expected 200-399");
  }

  @Test
  void http_sendsTheHostAsItsHostHeader_R_PQ_5() {
    Checker checker = new Checker(ProberTls.of(null, false));
    int port = http.getAddress().getPort();
    hostsSeen.clear();
    assertThat(check(checker, port, spec(HealthCheckProtocol.HTTP).setHost("orders.example.internal").build())
        .success()).isTrue();
    assertThat(check(checker, port, spec(HealthCheckProtocol.HTTP).build()).success()).isTrue();
    assertThat(hostsSeen).containsExactly("orders.example.internal", "127.0.0.1:" + port);
    checker.close();
  }

  @Test
  void http_failsWithinItsTimeout_whenTheServerNeverAnswersOrIsNoHttpServerOrIsGone_R_PQ_5() throws Exception {
    Checker checker = new Checker(ProberTls.of(null, false));
    try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      long start = System.nanoTime();
      Checker.Outcome o = check(checker, silent.getLocalPort(), spec(HealthCheckProtocol.HTTP).setTimeoutSec(1).build());
      assertThat(o.detail()).isEqualTo("timed out after 1 s");
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(900L, 4_000L);
    }
    assertThat(answeredBy(false, "SSH-2.0-not-http\r\n", checker, spec(HealthCheckProtocol.HTTP).build()))
        .satisfies(o -> assertThat(o.success()).as("a server that speaks no HTTP").isFalse());
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    assertThat(check(checker, closed, spec(HealthCheckProtocol.HTTP).build()).detail()).startsWith("ConnectException");
    checker.close();
  }

  @Test
  void http_readsABodyThatEndsWithTheConnection_R_PQ_5() throws Exception {
    Checker checker = new Checker(ProberTls.of(null, false));
    // HTTP/1.0 without a length: the body is what comes before the close
    assertThat(answeredBy(true, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nstatus: serving", checker,
        spec(HealthCheckProtocol.HTTP).setResponse("serving").build()))
        .satisfies(o -> assertThat(o.success()).as(o.detail()).isTrue());
    checker.close();
  }

  @Test
  void https_verifiesTheCertificateAndItsName_orAcceptsAnyWhenInsecure_R_PQ_5() {
    int port = https.getAddress().getPort();
    HealthCheckSpec named = spec(HealthCheckProtocol.HTTPS).setHost("localhost").setResponse("ok").build();
    assertThat(check(verifying(), port, named)).satisfies(o -> assertThat(o.success()).as(o.detail()).isTrue());
    assertThat(sniSeen).as("the host went as SNI").contains("localhost");
    assertThat(check(verifying(), port, spec(HealthCheckProtocol.HTTPS).setHost("other.example").build()))
        .satisfies(o -> {
          assertThat(o.success()).isFalse();
          assertThat(o.detail()).contains("certificate does not name other.example");
        });
    assertThat(check(new Checker(ProberTls.of(null, false)), port, named)).satisfies(o -> {
      assertThat(o.success()).as("the JDK's roots do not hold the test CA").isFalse();
      assertThat(o.detail()).startsWith("TLS: ").contains("--ca-file").contains("--insecure");
    });
    assertThat(check(new Checker(ProberTls.of(null, true)), port, spec(HealthCheckProtocol.HTTPS).build()).success())
        .isTrue();
  }

  @Test
  void http2_needsTheServerToSpeakIt_R_PQ_5() {
    int port = ((ServerConnector) h2.getConnectors()[0]).getLocalPort();
    assertThat(check(verifying(), port, spec(HealthCheckProtocol.HTTP2).setHost("localhost").setResponse("over h2").build()))
        .satisfies(o -> {
          assertThat(o.success()).as(o.detail()).isTrue();
          assertThat(o.detail()).isEqualTo("HTTP 200 (HTTP/2)");
        });
    assertThat(check(verifying(), https.getAddress().getPort(), spec(HealthCheckProtocol.HTTP2).build()))
        .satisfies(o -> {
          assertThat(o.success()).as("the JDK's HTTPS server speaks HTTP/1.1 only").isFalse();
          assertThat(o.detail()).contains("did not negotiate HTTP/2");
        });
  }

  @Test
  void ssl_isAHandshake_withTheHostAsSni_R_PQ_5() throws Exception {
    int port = https.getAddress().getPort();
    sniSeen.clear();
    assertThat(check(verifying(), port, spec(HealthCheckProtocol.SSL).setHost("localhost").build()))
        .satisfies(o -> {
          assertThat(o.success()).as(o.detail()).isTrue();
          assertThat(o.detail()).startsWith("TLS handshake ok, TLSv1.");
        });
    assertThat(sniSeen).containsExactly("localhost");
    assertThat(answeredBy(false, "SSH-2.0-not-tls\r\n", verifying(), spec(HealthCheckProtocol.SSL).build()))
        .satisfies(o -> assertThat(o.success()).as("a server that speaks no TLS").isFalse());
  }

  @Test
  void grpc_asksTheStandardHealthService_R_PQ_5() {
    int port = grpc.getPort();
    Checker checker = new Checker(ProberTls.of(null, false));
    assertThat(check(checker, port, spec(HealthCheckProtocol.GRPC).build()).detail()).isEqualTo("gRPC health SERVING");
    assertThat(check(checker, port, spec(HealthCheckProtocol.GRPC).setGrpcServiceName("orders.v1.Orders").build())
        .success()).isTrue();
    assertThat(check(checker, port, spec(HealthCheckProtocol.GRPC).setGrpcServiceName("payments.v1.Payments").build()))
        .satisfies(o -> {
          assertThat(o.success()).isFalse();
          assertThat(o.detail()).isEqualTo("gRPC health NOT_SERVING for payments.v1.Payments");
        });
    assertThat(check(checker, port, spec(HealthCheckProtocol.GRPC).setGrpcServiceName("unknown.Service").build())
        .detail()).startsWith("gRPC NOT_FOUND");
    assertThat(check(checker, http.getAddress().getPort(), spec(HealthCheckProtocol.GRPC).build()).success())
        .as("an HTTP/1.1 server is no gRPC server").isFalse();
  }

  @Test
  void tcp_isAConnect_R_PQ_5() throws Exception {
    Checker checker = new Checker(ProberTls.of(null, false));
    assertThat(check(checker, http.getAddress().getPort(), spec(HealthCheckProtocol.TCP).build()).success()).isTrue();
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    assertThat(check(checker, closed, spec(HealthCheckProtocol.TCP).build()).detail()).contains("ConnectException");
  }

  /**
   * A check of a server that answers one connection with {@code reply}, after reading the request
   * or at once, and then hangs up.
   */
  private static Checker.Outcome answeredBy(boolean readFirst, String reply, Checker checker, HealthCheckSpec spec)
      throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Thread answer = new Thread(() -> {
        try (Socket s = server.accept()) {
          if (readFirst) {
            s.getInputStream().read(new byte[1024]);
          }
          s.getOutputStream().write(reply.getBytes(StandardCharsets.US_ASCII));
          if (!readFirst) {
            s.getInputStream().read();
          }
        } catch (Exception e) {
          // the check hung up
        }
      });
      answer.start();
      Checker.Outcome outcome = check(checker, server.getLocalPort(), spec);
      answer.join(5_000);
      return outcome;
    }
  }

  /** The test CA's server certificate, with the SNI of every handshake written down. */
  private SSLContext serverContext() throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(ca.keystore())) {
      store.load(in, ca.password().toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(store, ca.password().toCharArray());
    X509ExtendedKeyManager keys = (X509ExtendedKeyManager) kmf.getKeyManagers()[0];
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(new KeyManager[] {new SniRecorder(keys)}, null, null);
    return context;
  }

  private org.eclipse.jetty.server.Server jettyH2() throws Exception {
    org.eclipse.jetty.server.Server server = new org.eclipse.jetty.server.Server();
    HttpConfiguration config = new HttpConfiguration();
    SecureRequestCustomizer secure = new SecureRequestCustomizer();
    secure.setSniHostCheck(false);
    config.addCustomizer(secure);
    HttpConnectionFactory h1 = new HttpConnectionFactory(config);
    HTTP2ServerConnectionFactory h2c = new HTTP2ServerConnectionFactory(config);
    ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory();
    alpn.setDefaultProtocol(h1.getProtocol());
    SslContextFactory.Server tls = new SslContextFactory.Server();
    tls.setKeyStorePath(ca.keystore().toString());
    tls.setKeyStorePassword(ca.password());
    tls.setKeyStoreType("PKCS12");
    tls.setSniRequired(false);
    ServerConnector connector = new ServerConnector(server, new SslConnectionFactory(tls, alpn.getProtocol()), alpn,
        h2c, h1);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        response.setStatus(200);
        response.write(true, java.nio.ByteBuffer.wrap(("ok over h2 " + request.getConnectionMetaData().getProtocol())
            .getBytes(StandardCharsets.UTF_8)), callback);
        return true;
      }
    });
    server.start();
    return server;
  }

  /** Delegates every choice; notes the server name a client asked for. */
  private final class SniRecorder extends X509ExtendedKeyManager {
    private final X509ExtendedKeyManager keys;

    SniRecorder(X509ExtendedKeyManager keys) {
      this.keys = keys;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
      if (engine.getHandshakeSession() instanceof ExtendedSSLSession s) {
        for (SNIServerName name : s.getRequestedServerNames()) {
          if (name instanceof SNIHostName host) {
            sniSeen.add(host.getAsciiName());
          }
        }
      }
      return keys.chooseEngineServerAlias(keyType, issuers, engine);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return keys.getClientAliases(keyType, issuers);
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return keys.chooseClientAlias(keyType, issuers, socket);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return keys.getServerAliases(keyType, issuers);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return keys.chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return keys.getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return keys.getPrivateKey(alias);
    }
  }
}
