package io.healthmesh.streams.query;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v1/status?kind=&name=&state=}: live state the way Kafka Streams applications serve
 * it. The instance asked answers from its own stores and asks every other instance of the
 * application ({@code application.server}) for theirs with {@code scope=local}, so the answer is
 * whole or an error: 503 when it cannot start, an end that says why when it cannot finish (a
 * rebalance moves a store, an instance does not answer), never a part presented as the whole. It
 * answers JSON rows, or the table's lines to whoever accepts {@link StatusTable#MEDIA_TYPE}.
 */
public final class StatusService implements HttpHandler {
  public static final String PATH = "/v1/status";
  private static final Logger LOG = LoggerFactory.getLogger(StatusService.class);
  private final KafkaStreams streams;
  /** This instance's {@code application.server}; null when not set, and then it answers for itself alone. */
  private final HostInfo self;
  private final Duration peerTimeout;
  private final Counter answered;
  private final Counter refused;

  public StatusService(KafkaStreams streams, String applicationServer, Duration peerTimeout, MeterRegistry meters) {
    this.streams = streams;
    this.self = applicationServer == null || applicationServer.isEmpty() ? null : HostInfo.buildFromEndpoint(applicationServer);
    this.peerTimeout = peerTimeout;
    this.answered = Counter.builder("healthmesh.status.queries").tag("outcome", "answered")
        .description("Status queries (GET /v1/status) by outcome").register(meters);
    this.refused = Counter.builder("healthmesh.status.queries").tag("outcome", "refused")
        .description("Status queries (GET /v1/status) by outcome").register(meters);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET")) {
        refuse(exchange, 405, "only GET");
        return;
      }
      String raw = exchange.getRequestURI().getRawQuery();
      StatusQuery query;
      try {
        query = StatusQuery.parse(raw);
      } catch (IllegalArgumentException e) {
        refuse(exchange, 400, e.getMessage());
        return;
      }
      boolean localOnly = raw != null && raw.contains("scope=local");
      List<HostInfo> peers;
      try {
        if (streams.state() != KafkaStreams.State.RUNNING) {
          throw new Unanswerable("the topology is " + streams.state() + ", its stores are not all in place");
        }
        peers = localOnly ? List.of() : peers();
      } catch (Unanswerable e) {
        refuse(exchange, 503, e.getMessage());
        return;
      }
      String accept = exchange.getRequestHeaders().getFirst("Accept");
      boolean table = accept != null && accept.contains(StatusTable.MEDIA_TYPE);
      exchange.getResponseHeaders().set("Content-Type",
          table ? StatusTable.MEDIA_TYPE + "; charset=utf-8" : "application/json");
      exchange.sendResponseHeaders(200, 0);
      int instances = 1 + peers.size();
      try (OutputStream out = exchange.getResponseBody();
          StatusAnswer answer = table ? new StatusTable.Answer(out, instances) : StatusAnswer.json(out, instances)) {
        boolean whole = answer(answer, raw, rows -> {
          LocalStatus.rows(streams, query, rows);
          for (HostInfo peer : peers) {
            ask(peer, query, rows);
          }
        });
        (whole ? answered : refused).increment();
      }
    }
  }

  /** Finds the rows of an answer, giving each to {@code rows} as it is found. */
  @FunctionalInterface
  interface Rows {
    void find(Consumer<StatusRow> rows);
  }

  /**
   * Writes each row as it is found, so that the asker decodes the first while the last are still
   * read. A failure after the first row can no longer be a 503: the answer then ends saying why,
   * in a way that no reader takes the part it holds for the whole ({@link StatusAnswer}).
   *
   * @param asked the query, for the log when a defect stops the answer
   * @return whether the answer is whole
   */
  static boolean answer(StatusAnswer answer, String asked, Rows find) throws IOException {
    String failure = null;
    try {
      find.find(row -> {
        try {
          answer.row(row);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (UncheckedIOException e) {
      throw e.getCause(); // the asker went away: there is no one left to tell
    } catch (InvalidStateStoreException e) {
      failure = "a rebalance is moving the stores: " + e.getMessage();
    } catch (Unanswerable e) {
      failure = e.getMessage();
    } catch (RuntimeException e) {
      // a defect, not a state of the topology: said, and counted, instead of a dropped connection
      LOG.error("status query {} failed", asked, e);
      failure = "the query failed: " + e;
    }
    if (failure != null) {
      answer.unfinished(failure);
      return false;
    }
    answer.whole();
    return true;
  }

  /** Every other instance holding active tasks, by its {@code application.server}. */
  private List<HostInfo> peers() {
    List<HostInfo> peers = new ArrayList<>();
    for (StreamsMetadata m : streams.metadataForAllStreamsClients()) {
      if (!m.hostInfo().equals(self) && !m.topicPartitions().isEmpty()) {
        if (m.hostInfo().port() <= 0) {
          throw new Unanswerable("an instance has no application.server, so its stores cannot be asked");
        }
        peers.add(m.hostInfo());
      }
    }
    return peers;
  }

  private void ask(HostInfo peer, StatusQuery query, Consumer<StatusRow> rows) {
    try {
      StatusClient.ask("http://" + peer.host() + ":" + peer.port(), query, true, peerTimeout, peerTimeout, rows);
    } catch (StatusClient.Unanswered e) {
      throw new Unanswerable("instance " + peer + " did not answer: " + e.getMessage());
    }
  }

  private void refuse(HttpExchange exchange, int code, String why) throws IOException {
    refused.increment();
    byte[] body = (why + "\n").getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(code, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /** Why the whole answer cannot be given. */
  static final class Unanswerable extends RuntimeException {
    Unanswerable(String message) {
      super(message, null, false, false);
    }
  }
}
