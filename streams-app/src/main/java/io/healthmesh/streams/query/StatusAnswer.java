package io.healthmesh.streams.query;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A status answer as it is written: its rows as they are found, then whether it is whole. JSON's
 * {@code {"instances": n, "rows": [...]}} by default; the table's lines ({@link StatusTable})
 * when those are asked for.
 */
interface StatusAnswer extends Closeable {
  JsonFactory FACTORY = new ObjectMapper().getFactory();

  void row(StatusRow row) throws IOException;

  void whole() throws IOException;

  /** Ends an answer that could not be finished, so that no reader takes the rows it holds for the whole. */
  void unfinished(String why) throws IOException;

  static StatusAnswer json(OutputStream out, int instances) throws IOException {
    return new Json(out, instances);
  }

  /** A failure after the first row ends it with {@code "error"} and leaves its JSON unclosed: no reader, however old, parses it whole. */
  final class Json implements StatusAnswer {
    private final JsonGenerator json;

    private Json(OutputStream out, int instances) throws IOException {
      json = FACTORY.createGenerator(out).disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT);
      json.writeStartObject();
      json.writeNumberField("instances", instances);
      json.writeArrayFieldStart("rows");
    }

    @Override
    public void row(StatusRow row) throws IOException {
      row.write(json);
    }

    @Override
    public void whole() throws IOException {
      json.writeEndArray();
      json.writeEndObject();
    }

    @Override
    public void unfinished(String why) throws IOException {
      json.writeEndArray();
      json.writeStringField(StatusClient.ERROR, why);
    }

    @Override
    public void close() throws IOException {
      json.close();
    }
  }
}
