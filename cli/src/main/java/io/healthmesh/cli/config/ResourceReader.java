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
    return read(Documents.load(paths, stdin));
  }

  /** The resources of one stream, named {@code name} in messages. */
  public static Read read(String name, InputStream in) {
    return read(Documents.read(name, in));
  }

  private static Read read(Documents.Loaded loaded) {
    Read read = read(loaded.documents());
    List<String> problems = new ArrayList<>(loaded.problems());
    problems.addAll(read.problems());
    return new Read(read.resources(), problems);
  }

  public static Read read(List<Document> documents) {
    List<Resource> resources = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Map<Resource.Ref, String> seen = new HashMap<>();
    for (Document doc : documents) {
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
        Resource resource = new Resource(kind, kind.key(value), value, doc.origin());
        String first = seen.putIfAbsent(resource.ref(), doc.origin());
        if (first != null) {
          problems.add(doc.origin() + ": name: " + resource.ref() + " is also declared at " + first);
        } else {
          resources.add(resource);
        }
      } catch (AvroJson.ConversionException e) {
        e.problems().forEach(p -> problems.add(doc.origin() + ": " + p));
      }
    }
    return new Read(resources, problems);
  }
}
