package io.healthmesh.cli.probe;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.healthmesh.config.HealthCheckProtocol;
import io.healthmesh.config.HealthCheckSpec;
import io.netty.channel.ConnectTimeoutException;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * Checks one target as its health check's protocol says, within its timeout, on a new connection:
 * TCP connect; HTTP, HTTPS or HTTP2 GET with the expected status and, when set, text in the body's first 1,024
 * bytes; SSL handshake; gRPC's standard health service (docs/rules.md R-PQ-5).
 */
public final class Checker implements AutoCloseable {
  /** The cloud matches the response text within the first 1,024 bytes of the body. */
  static final int RESPONSE_BYTES = 1_024;
  private final ProberTls tls;
  /** Two loops keep up with 3,333 checks a second (docs/benchmarks.md). */
  private static final int EVENT_LOOPS = Math.min(2, Runtime.getRuntime().availableProcessors());
  /** HTTP/2's clients, one per TLS name: the JDK's client pools its connections. */
  private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();
  private volatile LoopChecks loops;

  public Checker(ProberTls tls) {
    this.tls = tls;
  }

  /** What one check found. */
  public record Outcome(boolean success, long latencyMicros, String detail) {}

  /** Checks now and waits for the outcome. */
  public Outcome check(Target target) {
    return start(target).join();
  }

  /**
   * Starts a check: TCP, SSL, HTTP and HTTPS go out on the event loops and complete there; HTTP2
   * and GRPC run on the calling thread and are done on return. Never completes exceptionally.
   */
  public CompletableFuture<Outcome> start(Target target) {
    HealthCheckSpec spec = target.spec();
    long start = System.nanoTime();
    CompletableFuture<Outcome> found;
    if (!waits(spec)) {
      found = loops().check(target, spec);
    } else {
      found = new CompletableFuture<>();
      try {
        found.complete(spec.getProtocol() == HealthCheckProtocol.HTTP2 ? http2(target, spec) : grpc(target, spec));
      } catch (IOException | RuntimeException e) {
        found.completeExceptionally(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        found.completeExceptionally(e);
      }
    }
    return found.handle((o, e) -> {
      Outcome outcome = e == null ? o : failure(e instanceof CompletionException ? e.getCause() : e, spec);
      return new Outcome(outcome.success(), (System.nanoTime() - start) / 1000, outcome.detail());
    });
  }

  /** What went wrong, worded for the result's detail. */
  private Outcome failure(Throwable e, HealthCheckSpec spec) {
    if (e instanceof HttpTimeoutException || e instanceof SocketTimeoutException || e instanceof TimeoutException
        || e instanceof ConnectTimeoutException) {
      return new Outcome(false, 0, "timed out after " + spec.getTimeoutSec() + " s");
    }
    if (e instanceof InterruptedException) {
      return new Outcome(false, 0, "interrupted");
    }
    if (isTls(e)) {
      return new Outcome(false, 0, "TLS: " + rootMessage(e) + (tls.insecure() ? ""
          : " (the prober verifies certificates: --ca-file to trust a CA, --insecure as the cloud does)"));
    }
    // Netty names a refused connect by an inner class: say what the JDK would
    String kind = e instanceof ConnectException ? "ConnectException" : e.getClass().getSimpleName();
    return new Outcome(false, 0, kind + (e.getMessage() == null ? "" : ": " + e.getMessage()));
  }

  /**
   * Whether {@link #start} holds its thread until the check is done (HTTP2 and GRPC, whose clients
   * are the JDK's and gRPC's own) or returns at once (the rest, on {@link LoopChecks}' loops).
   */
  static boolean waits(HealthCheckSpec spec) {
    return spec.getProtocol() == HealthCheckProtocol.HTTP2 || spec.getProtocol() == HealthCheckProtocol.GRPC;
  }

  /** Timers on the checks' event loops, so that a check starts on the loop that runs it. */
  ScheduledExecutorService timers() {
    return loops().loops();
  }

  /** The event loops' checks, started at the first such check; no lock taken once they run. */
  private LoopChecks loops() {
    LoopChecks running = loops;
    if (running != null) {
      return running;
    }
    synchronized (this) {
      if (loops == null) {
        loops = new LoopChecks(tls, EVENT_LOOPS);
      }
      return loops;
    }
  }

  @Override
  public synchronized void close() {
    if (loops != null) {
      loops.close();
    }
  }

  /** HTTP/2 over TLS with the JDK's client, which negotiates h2 by ALPN; HTTP and HTTPS are {@link LoopChecks}'. */
  private Outcome http2(Target target, HealthCheckSpec spec) throws IOException, InterruptedException {
    String path = spec.getRequestPath().startsWith("/") ? spec.getRequestPath() : "/" + spec.getRequestPath();
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://"
        + hostPart(target.address()) + ":" + target.port() + path))
        .timeout(Duration.ofMillis(timeoutMillis(spec))).header("User-Agent", "healthmesh-prober").GET();
    HttpResponse<InputStream> response = client(spec.getHost()).send(request.build(),
        HttpResponse.BodyHandlers.ofInputStream());
    int status = response.statusCode();
    byte[] head;
    try (InputStream body = response.body()) {
      head = body.readNBytes(RESPONSE_BYTES); // the rest is never read; closing drops it
    }
    if (response.version() != HttpClient.Version.HTTP_2) {
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
    return new Outcome(true, 0, "HTTP " + status + " (HTTP/2)");
  }

  /** The client for one TLS server name. */
  private HttpClient client(String host) {
    return clients.computeIfAbsent(host, k -> {
      SSLContext context = tls.context(host);
      // From the context's defaults: the JDK offers h2 only when the parameters list TLS 1.2 or 1.3.
      SSLParameters params = context.getDefaultSSLParameters();
      if (!host.isEmpty()) {
        // The JDK names no server when it dials an address; a name given here is what it sends.
        params.setServerNames(List.of(new SNIHostName(host)));
      }
      return HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
          .version(HttpClient.Version.HTTP_2)
          .connectTimeout(Duration.ofSeconds(5)).sslContext(context).sslParameters(params).build();
    });
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

  static String hostPart(String address) {
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

  static int timeoutMillis(HealthCheckSpec spec) {
    return Math.max(1, spec.getTimeoutSec()) * 1000;
  }
}
