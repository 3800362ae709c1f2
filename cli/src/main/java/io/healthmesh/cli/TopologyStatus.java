package io.healthmesh.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healthmesh.streams.query.StatusQuery;
import io.healthmesh.streams.query.StatusRow;
import io.healthmesh.streams.query.StatusService;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code status} asked of the topology's stores ({@link StatusService}) instead of read from
 * {@code health-state}: a narrow question costs a request, not a read of the topic.
 */
final class TopologyStatus {
  /** Where {@code healthctl demo} serves it: the topology's metrics port. */
  static final String DEMO_URL = "http://127.0.0.1:9401";
  /** A topology that is there accepts at once; one that is not must not delay the fallback. */
  private static final Duration CONNECT = Duration.ofMillis(500);
  private static final Duration READ = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The answer, and how many instances' stores it came from. */
  record Answer(List<StatusRow> rows, int instances) {}

  /** Why no answer came; the command says so and reads the topic instead. */
  static final class Unanswered extends Exception {
    Unanswered(String message) {
      super(message, null, false, false);
    }
  }

  private TopologyStatus() {}

  static Answer ask(String baseUrl, StatusQuery query) throws Unanswered {
    String url = baseUrl.replaceAll("/+$", "") + StatusService.PATH + "?" + query.toQueryString();
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
      c.setConnectTimeout((int) CONNECT.toMillis());
      c.setReadTimeout((int) READ.toMillis());
      int code = c.getResponseCode();
      if (code != 200) {
        String why;
        try (InputStream err = c.getErrorStream()) {
          why = err == null ? "" : new String(err.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
        throw new Unanswered(url + " answered " + code + (why.isEmpty() ? "" : ": " + why));
      }
      try (InputStream in = c.getInputStream(); JsonParser json = JSON.getFactory().createParser(in)) {
        return read(json);
      }
    } catch (IOException | RuntimeException e) {
      throw new Unanswered(url + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
    }
  }

  /** {"instances": n, "rows": [...]}, a row at a time, so a large answer is never a tree. */
  private static Answer read(JsonParser json) throws IOException {
    List<StatusRow> rows = new ArrayList<>();
    int instances = 0;
    json.setCodec(JSON);
    if (json.nextToken() != JsonToken.START_OBJECT) {
      throw new IOException("not a status answer");
    }
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      String field = json.currentName();
      json.nextToken();
      if (field.equals("instances")) {
        instances = json.getIntValue();
      } else if (field.equals("rows")) {
        while (json.nextToken() == JsonToken.START_OBJECT) {
          rows.add(StatusRow.read(json.readValueAsTree()));
        }
      } else {
        json.skipChildren();
      }
    }
    return new Answer(rows, instances);
  }
}
