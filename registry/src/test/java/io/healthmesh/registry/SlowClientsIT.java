package io.healthmesh.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.kafka.embedded.EmbeddedKafka;
import io.healthmesh.observability.HttpServers;
import io.healthmesh.observability.MetricsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Clients that stop half way through a request hold neither the registry's REST API nor a
 * component's {@code /metrics} and {@code /health/*}: the others keep being answered, and the
 * slow ones are cut off after {@link HttpServers#MAX_REQUEST_TIME}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SlowClientsIT {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @Test
  void otherRequestsAreAnswered_whenEightClientsStallTheRegistry() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().createTopics(false).start()) {
      Properties p = new Properties();
      p.setProperty(RegistrySettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      p.setProperty(RegistrySettings.PORT, "0");
      try (SchemaRegistry registry = SchemaRegistry.start(RegistrySettings.from(p))) {
        URI uri = URI.create(registry.url());
        stallAndAsk(uri.getPort(), URI.create(registry.url() + "/subjects"), 8);
      }
    }
  }

  @Test
  void metricsAndHealthAreAnswered_whenFourClientsStallTheMetricsServer() throws Exception {
    try (MetricsServer metrics = MetricsServer.start("127.0.0.1", 0, MetricsServer.newRegistry("test"), () -> true)) {
      stallAndAsk(metrics.port(), URI.create("http://127.0.0.1:" + metrics.port() + "/health/ready"), 4);
      HttpResponse<String> scrape = HTTP.send(HttpRequest.newBuilder(URI.create(metrics.url())).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(scrape.statusCode()).isEqualTo(200);
    }
  }

  /** {@code slow} clients send part of a request and stop; meanwhile {@code ok} must answer quickly. */
  private static void stallAndAsk(int port, URI ok, int slow) throws Exception {
    List<Socket> stalled = new ArrayList<>();
    try {
      for (int i = 0; i < slow; i++) {
        Socket s = new Socket("127.0.0.1", port);
        OutputStream out = s.getOutputStream();
        out.write(("GET " + ok.getPath() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        stalled.add(s);
      }
      long end = System.nanoTime() + Duration.ofSeconds(8).toNanos();
      List<Long> millis = new ArrayList<>();
      while (System.nanoTime() < end) {
        long started = System.nanoTime();
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(ok).timeout(Duration.ofSeconds(3)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        millis.add((System.nanoTime() - started) / 1_000_000);
        Thread.sleep(200);
      }
      assertThat(millis).allSatisfy(ms -> assertThat(ms).isLessThan(1_000));
      // By now (8 s) every stalled connection has been closed by the server: reading sees its end.
      for (Socket s : stalled) {
        s.setSoTimeout(3_000);
        assertThat(readToEnd(s.getInputStream())).as("closed by the server").isTrue();
      }
    } finally {
      for (Socket s : stalled) {
        s.close();
      }
    }
  }

  private static boolean readToEnd(InputStream in) {
    try {
      while (in.read() >= 0) {
        // a 408 or nothing, then the end
      }
      return true;
    } catch (IOException e) {
      return e.getMessage() != null && e.getMessage().contains("reset");
    }
  }
}
