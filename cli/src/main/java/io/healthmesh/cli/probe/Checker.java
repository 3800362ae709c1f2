package io.healthmesh.cli.probe;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.healthmesh.config.HealthCheckProtocol;
import io.healthmesh.config.HealthCheckSpec;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * Checks one target as its health check's protocol says, within its timeout: TCP connect; HTTP,
 * HTTPS or HTTP2 GET with the expected status and, when set, text in the body's first 1,024
 * bytes; SSL handshake; gRPC's standard health service (docs/rules.md R-PQ-5).
 */
public final class Checker {
  /** The cloud matches the response text within the first 1,024 bytes of the body. */
  static final int RESPONSE_BYTES = 1_024;
  private final ProberTls tls;
  /** One client per protocol version and TLS name: the JDK's client pools its connections. */
  private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();

  public Checker(ProberTls tls) {
    this.tls = tls;
  }

  /** What one check found. */
  public record Outcome(boolean success, long latencyMicros, String detail) {}

  public Outcome check(Target target) {
    HealthCheckSpec spec = target.spec();
    long start = System.nanoTime();
    Outcome found;
    try {
      found = switch (spec.getProtocol()) {
        case HTTP, HTTPS, HTTP2 -> http(target, spec);
        case SSL -> handshake(target, spec);
        case GRPC -> grpc(target, spec);
        default -> connect(target, spec);
      };
    } catch (HttpTimeoutException | SocketTimeoutException e) {
      found = new Outcome(false, 0, "timed out after " + spec.getTimeoutSec() + " s");
    } catch (IOException e) {
      found = new Outcome(false, 0, isTls(e) ? "TLS: " + rootMessage(e) + (tls.insecure() ? ""
          : " (the prober verifies certificates: --ca-file to trust a CA, --insecure as the cloud does)")
          : e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      found = new Outcome(false, 0, "interrupted");
    }
    return new Outcome(found.success(), (System.nanoTime() - start) / 1000, found.detail());
  }

  private static Outcome connect(Target target, HealthCheckSpec spec) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(target.address(), target.port()), timeoutMillis(spec));
    }
    return new Outcome(true, 0, "TCP connect ok");
  }

  private Outcome http(Target target, HealthCheckSpec spec) throws IOException, InterruptedException {
    boolean overTls = spec.getProtocol() != HealthCheckProtocol.HTTP;
    boolean h2 = spec.getProtocol() == HealthCheckProtocol.HTTP2;
    String path = spec.getRequestPath().startsWith("/") ? spec.getRequestPath() : "/" + spec.getRequestPath();
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create((overTls ? "https" : "http") + "://"
        + hostPart(target.address()) + ":" + target.port() + path))
        .timeout(Duration.ofMillis(timeoutMillis(spec))).header("User-Agent", "healthmesh-prober").GET();
    HttpResponse<InputStream> response = client(h2, spec.getHost()).send(request.build(),
        HttpResponse.BodyHandlers.ofInputStream());
    int status = response.statusCode();
    byte[] head;
    try (InputStream body = response.body()) {
      head = body.readNBytes(RESPONSE_BYTES); // the rest is never read; closing drops it
    }
    if (h2 && response.version() != HttpClient.Version.HTTP_2) {
      return new Outcome(false, 0, "HTTP " + status + " over HTTP/1.1: the server did not negotiate HTTP/2 (ALPN h2)");
    }
    if (status < spec.getExpectedStatusMin() || status > spec.getExpectedStatusMax()) {
      return new Outcome(false, 0, "HTTP " + status + ", expected " + spec.getExpectedStatusMin() + "-"
          + spec.getExpectedStatusMax());
    }
    String wanted = spec.getResponse();
    if (!wanted.isEmpty() && !new String(head, StandardCharsets.ISO_8859_1).contains(wanted)) {
      return new Outcome(false, 0, "HTTP " + status + ", but the first " + RESPONSE_BYTES
          + " bytes of the body lack '" + wanted + "'");
    }
    return new Outcome(true, 0, "HTTP " + status + (h2 ? " (HTTP/2)" : ""));
  }

  /** The client for one HTTP version and TLS server name; HTTP/1.1 for HTTP and HTTPS, as the cloud checks. */
  private HttpClient client(boolean h2, String host) {
    return clients.computeIfAbsent((h2 ? "h2|" : "h1|") + host, k -> {
      SSLContext context = tls.context(host);
      // From the context's defaults: the JDK offers h2 only when the parameters list TLS 1.2 or 1.3.
      SSLParameters params = context.getDefaultSSLParameters();
      if (!host.isEmpty()) {
        // The JDK names no server when it dials an address; a name given here is what it sends.
        params.setServerNames(List.of(new SNIHostName(host)));
      }
      return HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
          .version(h2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5)).sslContext(context).sslParameters(params).build();
    });
  }

  private Outcome handshake(Target target, HealthCheckSpec spec) throws IOException {
    try (Socket plain = new Socket()) {
      plain.connect(new InetSocketAddress(target.address(), target.port()), timeoutMillis(spec));
      plain.setSoTimeout(timeoutMillis(spec));
      try (SSLSocket socket = (SSLSocket) tls.context(spec.getHost()).getSocketFactory()
          .createSocket(plain, target.address(), target.port(), false)) {
        if (!spec.getHost().isEmpty()) {
          SSLParameters params = socket.getSSLParameters();
          params.setServerNames(List.of(new SNIHostName(spec.getHost())));
          socket.setSSLParameters(params);
        }
        socket.startHandshake();
        return new Outcome(true, 0, "TLS handshake ok, " + socket.getSession().getProtocol());
      }
    }
  }

  private static Outcome grpc(Target target, HealthCheckSpec spec) {
    ManagedChannel channel = ManagedChannelBuilder.forAddress(target.address(), target.port()).usePlaintext()
        .overrideAuthority(spec.getHost().isEmpty() ? hostPart(target.address()) + ":" + target.port() : spec.getHost())
        .build();
    try {
      HealthCheckResponse response = HealthGrpc.newBlockingStub(channel)
          .withDeadlineAfter(timeoutMillis(spec), TimeUnit.MILLISECONDS)
          .check(HealthCheckRequest.newBuilder().setService(spec.getGrpcServiceName()).build());
      boolean serving = response.getStatus() == HealthCheckResponse.ServingStatus.SERVING;
      return new Outcome(serving, 0, "gRPC health " + response.getStatus()
          + (spec.getGrpcServiceName().isEmpty() ? "" : " for " + spec.getGrpcServiceName()));
    } catch (StatusRuntimeException e) {
      return new Outcome(false, 0, "gRPC " + e.getStatus().getCode() + (e.getStatus().getDescription() == null ? ""
          : ": " + e.getStatus().getDescription()));
    } finally {
      channel.shutdownNow();
    }
  }

  private static String hostPart(String address) {
    return address.contains(":") ? "[" + address + "]" : address;
  }

  /** The JDK's client may wrap the handshake's failure. */
  private static boolean isTls(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SSLException) {
        return true;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }

  private static int timeoutMillis(HealthCheckSpec spec) {
    return Math.max(1, spec.getTimeoutSec()) * 1000;
  }
}
