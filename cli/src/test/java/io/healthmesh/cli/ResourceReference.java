package io.healthmesh.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healthmesh.cli.config.ResourceKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.avro.Schema;

/**
 * The resource reference of docs/resources.md, written from the {@code .avsc} schemas: every kind,
 * then every record it holds, each once, with each field's type, default and doc. The schemas are
 * the one truth; {@code ResourceReferenceTest} fails when the committed page differs.
 */
final class ResourceReference {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ResourceReference() {}

  static String markdown() {
    StringBuilder out = new StringBuilder();
    Set<String> written = new HashSet<>();
    for (ResourceKind kind : ResourceKind.values()) {
      record(out, kind.schema(), true, written);
    }
    return out.toString();
  }

  private static void record(StringBuilder out, Schema schema, boolean kind, Set<String> written) {
    if (!written.add(schema.getFullName())) {
      return;
    }
    JsonNode json = readTree(schema.toString());
    out.append("**").append(schema.getName()).append("**").append(kind ? " (kind)" : "").append("\n\n");
    out.append("| field | type | default | meaning |\n|---|---|---|---|\n");
    List<Schema> nested = new ArrayList<>();
    for (Schema.Field f : schema.getFields()) {
      JsonNode field = fieldJson(json, f.name());
      out.append("| `").append(f.name()).append("` | ").append(cell(type(f.schema(), nested))).append(" | ")
          .append(cell(field.has("default") ? field.get("default").toString() : "(required)")).append(" | ")
          .append(cell(f.doc() == null ? "" : f.doc())).append(" |\n");
    }
    out.append('\n');
    nested.forEach(n -> record(out, n, false, written));
  }

  private static String type(Schema schema, List<Schema> nested) {
    return switch (schema.getType()) {
      case RECORD -> {
        nested.add(schema);
        yield schema.getName();
      }
      case ENUM -> String.join(" | ", schema.getEnumSymbols());
      case ARRAY -> "list of " + type(schema.getElementType(), nested);
      case MAP -> "map of string to " + type(schema.getValueType(), nested);
      case UNION -> {
        List<Schema> types = schema.getTypes();
        boolean nullable = types.stream().anyMatch(t -> t.getType() == Schema.Type.NULL);
        String others = types.stream().filter(t -> t.getType() != Schema.Type.NULL).map(t -> type(t, nested))
            .collect(Collectors.joining(" or "));
        yield nullable ? others + " or null" : others;
      }
      default -> schema.getType().getName();
    };
  }

  private static JsonNode fieldJson(JsonNode record, String name) {
    for (JsonNode f : record.get("fields")) {
      if (f.get("name").asText().equals(name)) {
        return f;
      }
    }
    throw new IllegalStateException("no field " + name);
  }

  /** A table cell: a pipe would end it. */
  private static String cell(String text) {
    return text.replace("|", "\\|");
  }

  private static JsonNode readTree(String text) {
    try {
      return JSON.readTree(text);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
