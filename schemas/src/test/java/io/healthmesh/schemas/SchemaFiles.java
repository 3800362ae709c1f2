package io.healthmesh.schemas;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.AvroTypeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/** Parses a tree of .avsc files whose types refer to each other, in whatever order works. */
final class SchemaFiles {
  private SchemaFiles() {}

  /** Top-level type of every file under {@code root}, by full name. */
  static Map<String, Schema> parseTree(Path root) {
    List<Path> pending = files(root);
    Map<String, Schema> parsed = new LinkedHashMap<>();
    Map<String, Schema> known = new LinkedHashMap<>();
    while (!pending.isEmpty()) {
      List<Path> failed = new ArrayList<>();
      String lastError = "";
      for (Path file : pending) {
        try {
          // A fresh parser per try: a failed parse may leave half-defined names behind.
          Schema.Parser parser = new Schema.Parser();
          parser.addTypes(known.values());
          Schema schema = parser.parse(Files.readString(file));
          parsed.put(schema.getFullName(), schema);
          known.putAll(parser.getTypes());
        } catch (SchemaParseException | AvroTypeException e) {
          failed.add(file);
          lastError = file + ": " + e.getMessage();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      if (failed.size() == pending.size()) {
        throw new IllegalStateException("cannot parse " + failed + "; last error " + lastError);
      }
      pending = failed;
    }
    return parsed;
  }

  private static List<Path> files(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      return paths.filter(p -> p.toString().endsWith(".avsc")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
