package io.healthmesh.streams.query;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Asks a topology instance's {@link StatusService}: healthctl asks for the whole answer, an
 * instance asks the others for their parts. HttpURLConnection, not java.net.http: the latter's
 * selector thread keeps a short command's JVM from exiting for 0.3 s (docs/benchmarks.md).
 */
public final class StatusClient {
  private static final JsonFactory JSON = new JsonFactory();
  /** The field that ends an answer that could not be finished, saying why. */
  static final String ERROR = "error";

  /** Why no answer came, with the URL asked. */
  public static final class Unanswered extends Exception {
    Unanswered(String message) {
      super(message, null, false, false);
    }
  }

  private StatusClient() {}

  /**
   * Gives {@code rows} each row of the answer as it arrives: they are the whole answer only if no
   * {@link Unanswered} follows.
   *
   * @param baseUrl {@code http://host:port} of the instance's metrics server
   * @param localOnly only the instance's own stores ({@code scope=local})
   * @return how many instances' stores the rows came from
   */
  public static int ask(String baseUrl, StatusQuery query, boolean localOnly, Duration connect, Duration read,
      Consumer<StatusRow> rows) throws Unanswered {
    return ask(baseUrl, query, localOnly, connect, read, "application/json", (answer, json) -> {
      try (JsonParser parser = JSON.createParser(answer)) {
        return read(parser, rows);
      }
    });
  }

  /**
   * The answer as the status table's rows ({@link StatusTable}), each given to {@code rows} as it
   * arrives; from a topology that answers with JSON (one older than the table), its rows worded
   * here.
   */
  public static int table(String baseUrl, StatusQuery query, Duration connect, Duration read,
      Consumer<StatusTable.Row> rows) throws Unanswered {
    return ask(baseUrl, query, false, connect, read, StatusTable.MEDIA_TYPE, (answer, json) -> {
      if (!json) {
        return StatusTable.read(answer, rows);
      }
      try (JsonParser parser = JSON.createParser(answer)) {
        return read(parser, row -> rows.accept(StatusTable.row(row)));
      }
    });
  }

  /** Reads an answer's body. */
  @FunctionalInterface
  private interface Reader {
    int read(InputStream answer, boolean json) throws IOException, Refused;
  }

  private static int ask(String baseUrl, StatusQuery query, boolean localOnly, Duration connect, Duration read,
      String accept, Reader reader) throws Unanswered {
    String url = baseUrl.replaceAll("/+$", "") + StatusService.PATH + "?" + query.toQueryString()
        + (localOnly ? "&scope=local" : "");
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
      c.setConnectTimeout((int) connect.toMillis());
      c.setReadTimeout((int) read.toMillis());
      c.setRequestProperty("Accept", accept);
      int code = c.getResponseCode();
      if (code != 200) {
        String why;
        try (InputStream err = c.getErrorStream()) {
          why = err == null ? "" : new String(err.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
        throw new Unanswered(url + " answered " + code + (why.isEmpty() ? "" : ": " + why));
      }
      String type = c.getContentType();
      try (InputStream in = c.getInputStream()) {
        return reader.read(in, type == null || !type.startsWith(StatusTable.MEDIA_TYPE));
      } catch (Refused e) {
        throw new Unanswered(url + " could not finish its answer: " + e.getMessage());
      }
    } catch (IOException | RuntimeException e) {
      throw new Unanswered(url + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
    }
  }

  /**
   * {"instances": n, "rows": [...]}, a row at a time, so a large answer is never one tree; one
   * that ends with an {@code error} (and unclosed) was not whole.
   */
  static int read(JsonParser json, Consumer<StatusRow> rows) throws IOException, Refused {
    int instances = 0;
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
          rows.accept(StatusRow.read(json));
        }
      } else if (field.equals(ERROR)) {
        throw new Refused(json.getText());
      } else {
        json.skipChildren();
      }
    }
    return instances;
  }

  /** What an answer that could not be finished said about why. */
  static final class Refused extends Exception {
    Refused(String message) {
      super(message, null, false, false);
    }
  }
}
