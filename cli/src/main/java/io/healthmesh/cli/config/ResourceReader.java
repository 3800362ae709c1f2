package io.healthmesh.cli.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/** Turns documents into resources, collecting every problem of every document. */
public final class ResourceReader {
  private ResourceReader() {}

  public record Read(List<Resource> resources, List<String> problems) {}

  /** The resources of {@code -f} arguments (files, directories, - for stdin), with every problem of any kind. */
  public static Read load(List<String> paths, InputStream stdin) {
    return read(Documents.split(paths, stdin));
  }

  /** The resources of one stream, named {@code name} in messages. */
  public static Read read(String name, InputStream in) {
    return read(Documents.split(name, in));
  }

  private static Read read(Documents.Pieces pieces) {
    // Parsing and conversion are nearly all of a large apply's time: documents go through them
    // side by side, and the results are taken in document order.
    List<Read> converted = pieces.pieces().parallelStream().map(ResourceReader::convert).toList();
    List<Resource> resources = new ArrayList<>();
    List<String> problems = new ArrayList<>(pieces.problems());
    Map<Resource.Ref, String> seen = new HashMap<>();
    for (Read read : converted) {
      problems.addAll(read.problems());
      for (Resource resource : read.resources()) {
        String first = seen.putIfAbsent(resource.ref(), resource.origin());
        if (first != null) {
          problems.add(resource.origin() + ": name: " + resource.ref() + " is also declared at " + first);
        } else {
          resources.add(resource);
        }
      }
    }
    return new Read(resources, problems);
  }

  private static Read convert(Documents.Piece piece) {
    Documents.Loaded loaded = Documents.parse(piece);
    List<Resource> resources = new ArrayList<>(1);
    List<String> problems = new ArrayList<>(loaded.problems());
    for (Document doc : loaded.documents()) {
      JsonNode kindNode = doc.body().get("kind");
      if (!doc.body().isObject() || kindNode == null || !kindNode.isTextual()) {
        problems.add(doc.origin() + ": kind: required, one of " + ResourceKind.names());
        continue;
      }
      ResourceKind kind = ResourceKind.parse(kindNode.asText()).filter(k -> k.kindName().equals(kindNode.asText()))
          .orElse(null);
      if (kind == null) {
        problems.add(doc.origin() + ": kind: '" + kindNode.asText() + "' is not one of "
            + ResourceKind.names().replaceAll(" \\([a-z]+\\)", ""));
        continue;
      }
      try {
        SpecificRecord value = AvroJson.read(doc.body(), kind.schema(), List.of("kind"));
        resources.add(new Resource(kind, kind.key(value), value, doc.origin()));
      } catch (AvroJson.ConversionException e) {
        e.problems().forEach(p -> problems.add(doc.origin() + ": " + p));
      }
    }
    return new Read(resources, problems);
  }
}
