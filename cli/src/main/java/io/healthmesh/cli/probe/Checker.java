package io.healthmesh.cli.probe;

import io.healthmesh.config.HealthCheckProtocol;
import io.healthmesh.config.HealthCheckSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/** Checks one target over TCP connect or HTTP(S) GET, within the health check's timeout. */
public final class Checker {
  private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
      .connectTimeout(Duration.ofSeconds(5)).build();

  /** What one check found. */
  public record Outcome(boolean success, long latencyMicros, String detail) {}

  public Outcome check(Target target) {
    HealthCheckSpec spec = target.spec();
    long start = System.nanoTime();
    boolean success;
    String detail;
    try {
      if (spec.getProtocol() == HealthCheckProtocol.HTTP || spec.getProtocol() == HealthCheckProtocol.HTTPS) {
        int status = get(target, spec);
        success = status >= spec.getExpectedStatusMin() && status <= spec.getExpectedStatusMax();
        detail = "HTTP " + status + (success ? "" : ", expected " + spec.getExpectedStatusMin() + "-"
            + spec.getExpectedStatusMax());
      } else {
        try (Socket socket = new Socket()) {
          socket.connect(new InetSocketAddress(target.address(), target.port()), timeoutMillis(spec));
        }
        success = true;
        detail = "TCP connect ok";
      }
    } catch (HttpTimeoutException | SocketTimeoutException e) {
      success = false;
      detail = "timed out after " + spec.getTimeoutSec() + " s";
    } catch (IOException e) {
      success = false;
      detail = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      success = false;
      detail = "interrupted";
    }
    return new Outcome(success, (System.nanoTime() - start) / 1000, detail);
  }

  private int get(Target target, HealthCheckSpec spec) throws IOException, InterruptedException {
    String scheme = spec.getProtocol() == HealthCheckProtocol.HTTPS ? "https" : "http";
    String host = target.address().contains(":") ? "[" + target.address() + "]" : target.address();
    String path = spec.getRequestPath().startsWith("/") ? spec.getRequestPath() : "/" + spec.getRequestPath();
    HttpRequest request = HttpRequest.newBuilder(URI.create(scheme + "://" + host + ":" + target.port() + path))
        .timeout(Duration.ofMillis(timeoutMillis(spec))).header("User-Agent", "healthmesh-prober").GET().build();
    return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static int timeoutMillis(HealthCheckSpec spec) {
    return Math.max(1, spec.getTimeoutSec()) * 1000;
  }
}
