package io.healthmesh.cli.config;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healthmesh.schemas.IsoInstants;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * Converts between JSON/YAML trees and Avro specific records, guided by the schema: a missing field
 * takes its schema default, enums match in any case, and every problem is reported with its path
 * instead of stopping at the first one.
 */
public final class AvroJson {
  private static final SpecificData DATA = SpecificData.get();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  /**
   * A record schema's field defaults, by field position: SpecificData's own cache is keyed by the
   * field's equality, which hashes the field's whole schema at every lookup (most of writing a
   * record). Generated classes hold one schema object each, so an identity map stays small.
   */
  private static final Map<Schema, Object[]> DEFAULTS = Collections.synchronizedMap(new IdentityHashMap<>());

  private AvroJson() {}

  /** Every problem of a conversion, as {@code path: message}. */
  public static final class ConversionException extends Exception {
    private final List<String> problems;

    ConversionException(List<String> problems) {
      super(String.join("; ", problems));
      this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
      return problems;
    }
  }

  /** @param ignored top-level fields that are not part of the schema (such as {@code kind}) */
  public static <T extends SpecificRecord> T read(JsonNode node, Schema schema, List<String> ignored)
      throws ConversionException {
    List<String> problems = new ArrayList<>();
    Object value = record(node, schema, At.ROOT, ignored, problems);
    if (!problems.isEmpty()) {
      throw new ConversionException(problems);
    }
    @SuppressWarnings("unchecked")
    T record = (T) value;
    return record;
  }

  /** The record as a tree; fields that hold their default are left out unless listed in {@code always}. */
  public static ObjectNode write(SpecificRecord record, List<String> always) {
    return (ObjectNode) tree(record, record.getSchema(), always, true);
  }

  /** The record as a tree with every field, for machine-readable output. */
  public static ObjectNode writeAll(SpecificRecord record) {
    return (ObjectNode) tree(record, record.getSchema(), List.of(), false);
  }

  /**
   * The record on one line, as compact JSON of what {@link #write} gives less the fields {@code
   * leftOut}, cut to {@code width} characters (the last three "..." when cut). Written straight
   * from the record and stopped once past the width: a table of 100,000 rows builds no trees and
   * writes no more than it shows.
   */
  public static String summary(SpecificRecord record, List<String> leftOut, int width) {
    StringBuilder line = new StringBuilder(width + 16);
    object(record, record.getSchema(), leftOut, line, width);
    return line.length() > width ? line.substring(0, width - 3) + "..." : line.toString();
  }

  /** Appends the record's fields not at their default, less {@code leftOut}; false once past {@code width}. */
  private static boolean object(SpecificRecord record, Schema schema, List<String> leftOut, StringBuilder line,
      int width) {
    Object[] defaults = defaults(schema);
    line.append('{');
    boolean first = true;
    for (Schema.Field field : schema.getFields()) {
      Object value = record.get(field.pos());
      if (leftOut.contains(field.name()) || atDefault(field, defaults, value)) {
        continue;
      }
      line.append(first ? "" : ",");
      first = false;
      quoted(field.name(), line);
      line.append(':');
      if (!compact(value, field.schema(), line, width)) {
        return false;
      }
    }
    line.append('}');
    return line.length() <= width;
  }

  /** As {@link #tree} with defaults skipped, then written by Jackson without indentation. */
  static boolean compact(Object value, Schema schema, StringBuilder line, int width) {
    if (value == null) {
      line.append("null");
      return line.length() <= width;
    }
    switch (schema.getType()) {
      case UNION -> {
        return compact(value, schema.getTypes().get(DATA.resolveUnion(schema, value)), line, width);
      }
      case RECORD -> {
        return object((SpecificRecord) value, schema, List.of(), line, width);
      }
      case ARRAY -> {
        line.append('[');
        boolean first = true;
        for (Object item : (List<?>) value) {
          line.append(first ? "" : ",");
          first = false;
          if (!compact(item, schema.getElementType(), line, width)) {
            return false;
          }
        }
        line.append(']');
      }
      case ENUM, STRING -> quoted(value.toString(), line);
      case BOOLEAN, INT -> line.append(value);
      case LONG -> {
        if (value instanceof Instant instant) {
          quoted(IsoInstants.format(instant), line);
        } else {
          line.append((long) (Long) value);
        }
      }
      case DOUBLE, FLOAT -> number(((Number) value).doubleValue(), line);
      default -> throw new IllegalArgumentException("no JSON mapping for Avro type " + schema.getType());
    }
    return line.length() <= width;
  }

  static void number(double d, StringBuilder line) {
    // Jackson quotes what is not a JSON number
    if (Double.isFinite(d)) {
      line.append(d);
    } else {
      quoted(Double.toString(d), line);
    }
  }

  static void quoted(String text, StringBuilder line) {
    line.append('"');
    if (plain(text)) {
      line.append(text);
    } else {
      JsonStringEncoder.getInstance().quoteAsString(text, line);
    }
    line.append('"');
  }

  /** Text JSON takes as it is (most names and addresses): nothing for Jackson's encoder to escape. */
  private static boolean plain(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }

  private static Object record(JsonNode node, Schema schema, At path, List<String> ignored, List<String> problems) {
    if (!node.isObject()) {
      problems.add(at(path) + "expected an object with fields " + fieldNames(schema) + ", got " + describe(node));
      return null;
    }
    SpecificRecord record = (SpecificRecord) DATA.newRecord(null, schema);
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (schema.getField(name) == null && !ignored.contains(name)) {
        problems.add(at(path.field(name)) + "unknown field; " + schema.getName() + " has " + fieldNames(schema));
      }
    }
    for (Schema.Field field : schema.getFields()) {
      JsonNode child = node.get(field.name());
      At childPath = path.field(field.name());
      if (child == null) {
        if (field.hasDefaultValue()) {
          record.put(field.pos(), DATA.deepCopy(field.schema(), defaults(schema)[field.pos()]));
        } else {
          problems.add(at(childPath) + "required");
        }
      } else {
        record.put(field.pos(), value(child, field.schema(), childPath, problems));
      }
    }
    return record;
  }

  private static Object value(JsonNode node, Schema schema, At path, List<String> problems) {
    switch (schema.getType()) {
      case UNION -> {
        if (node.isNull()) {
          if (schema.getTypes().stream().noneMatch(s -> s.getType() == Schema.Type.NULL)) {
            problems.add(at(path) + "must not be null");
          }
          return null;
        }
        Schema branch = schema.getTypes().stream().filter(s -> s.getType() != Schema.Type.NULL).findFirst().orElseThrow();
        return value(node, branch, path, problems);
      }
      case RECORD -> {
        return record(node, schema, path, List.of(), problems);
      }
      case ARRAY -> {
        if (!node.isArray()) {
          problems.add(at(path) + "expected a list, got " + describe(node));
          return List.of();
        }
        List<Object> items = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
          items.add(value(node.get(i), schema.getElementType(), path.item(i), problems));
        }
        return items;
      }
      case ENUM -> {
        String text = node.asText();
        for (String symbol : schema.getEnumSymbols()) {
          if (node.isTextual() && symbol.equalsIgnoreCase(text)) {
            return DATA.createEnum(symbol, schema);
          }
        }
        problems.add(at(path) + "'" + text + "' is not one of " + schema.getEnumSymbols());
        return null;
      }
      case STRING -> {
        if (!node.isValueNode() || node.isNull()) {
          problems.add(at(path) + "expected text, got " + describe(node));
        }
        return node.asText();
      }
      case BOOLEAN -> {
        if (!node.isBoolean()) {
          problems.add(at(path) + "expected true or false, got " + describe(node));
        }
        return node.asBoolean();
      }
      case INT -> {
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
          problems.add(at(path) + "expected a whole number, got " + describe(node));
        }
        return node.asInt();
      }
      case LONG -> {
        if (schema.getLogicalType() instanceof LogicalTypes.TimestampMillis) {
          return instant(node, path, problems);
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
          problems.add(at(path) + "expected a whole number, got " + describe(node));
        }
        return node.asLong();
      }
      case DOUBLE, FLOAT -> {
        if (!node.isNumber()) {
          problems.add(at(path) + "expected a number, got " + describe(node));
        }
        return schema.getType() == Schema.Type.FLOAT ? (Object) (float) node.asDouble() : node.asDouble();
      }
      default -> throw new IllegalArgumentException("no JSON mapping for Avro type " + schema.getType());
    }
  }

  /** Timestamps: ISO-8601 text such as 2026-11-30T12:00:00Z, or milliseconds since the epoch. */
  private static Instant instant(JsonNode node, At path, List<String> problems) {
    if (node.isIntegralNumber()) {
      return Instant.ofEpochMilli(node.asLong());
    }
    try {
      return IsoInstants.parse(node.asText());
    } catch (DateTimeParseException e) {
      problems.add(at(path) + "expected an ISO-8601 time such as 2026-11-30T12:00:00Z or epoch milliseconds, got "
          + describe(node));
      return Instant.EPOCH;
    }
  }

  private static JsonNode tree(Object value, Schema schema, List<String> always, boolean skipDefaults) {
    if (value == null) {
      return NODES.nullNode();
    }
    switch (schema.getType()) {
      case UNION -> {
        return tree(value, schema.getTypes().get(DATA.resolveUnion(schema, value)), List.of(), skipDefaults);
      }
      case RECORD -> {
        SpecificRecord record = (SpecificRecord) value;
        ObjectNode object = NODES.objectNode();
        Object[] defaults = defaults(schema);
        for (Schema.Field field : schema.getFields()) {
          Object fieldValue = record.get(field.pos());
          if (skipDefaults && !always.contains(field.name()) && atDefault(field, defaults, fieldValue)) {
            continue;
          }
          object.set(field.name(), tree(fieldValue, field.schema(), List.of(), skipDefaults));
        }
        return object;
      }
      case ARRAY -> {
        ArrayNode array = NODES.arrayNode();
        for (Object item : (List<?>) value) {
          array.add(tree(item, schema.getElementType(), List.of(), skipDefaults));
        }
        return array;
      }
      case ENUM, STRING -> {
        return NODES.textNode(value.toString());
      }
      case BOOLEAN -> {
        return NODES.booleanNode((Boolean) value);
      }
      case INT -> {
        return NODES.numberNode((Integer) value);
      }
      case LONG -> {
        return value instanceof Instant instant ? NODES.textNode(IsoInstants.format(instant)) : NODES.numberNode((Long) value);
      }
      case DOUBLE, FLOAT -> {
        return NODES.numberNode(((Number) value).doubleValue());
      }
      default -> throw new IllegalArgumentException("no JSON mapping for Avro type " + schema.getType());
    }
  }

  /** Whether a field holds its default, and so is left out of what is written for people. */
  private static boolean atDefault(Schema.Field field, Object[] defaults, Object value) {
    return field.hasDefaultValue() && Objects.equals(defaults[field.pos()], value);
  }

  /** Each field's default (null without one), by position; shared, so never changed by callers. */
  static Object[] defaults(Schema record) {
    return DEFAULTS.computeIfAbsent(record, r -> r.getFields().stream()
        .map(f -> f.hasDefaultValue() ? DATA.getDefaultValue(f) : null).toArray());
  }

  private static String fieldNames(Schema schema) {
    return schema.getFields().stream().map(Schema.Field::name).toList().toString();
  }

  private static String describe(JsonNode node) {
    if (node.isContainerNode()) {
      return node.isArray() ? "a list" : "an object";
    }
    return node.isTextual() ? "'" + node.asText() + "'" : node.toString();
  }

  private static String at(At path) {
    return path == At.ROOT ? "" : path + ": ";
  }

  /**
   * Where a value sits ({@code routingPolicy.wrr.items[1].weight}), worded only when a problem is
   * said: a large apply converts millions of values and finds few problems.
   */
  private record At(At parent, String field, int index) {
    static final At ROOT = new At(null, null, -1);

    At field(String name) {
      return new At(this, name, -1);
    }

    At item(int i) {
      return new At(this, null, i);
    }

    @Override
    public String toString() {
      if (this == ROOT) {
        return "";
      }
      String above = parent.toString();
      return field == null ? above + "[" + index + "]" : above.isEmpty() ? field : above + "." + field;
    }
  }
}
