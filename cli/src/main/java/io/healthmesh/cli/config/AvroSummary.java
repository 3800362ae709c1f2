package io.healthmesh.cli.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.util.Utf8;

/**
 * {@link AvroJson#summary} written straight from a record's Avro body, without making the record:
 * a table of every record set then reads each body once, into its line, and keeps the line alone.
 * It reads bodies written with the schema it was made for (a writer schema equal to the generated
 * class's), of the types the configuration uses; {@link #of} says which schemas those are, and
 * anything else is summarised from the decoded record. The body is read to its end even once the
 * line is full, so a damaged body fails here as it would in Avro's own reader.
 */
final class AvroSummary {
  private static final DecoderFactory DECODERS = DecoderFactory.get();
  /**
   * Each reading thread's decoder, line and text, used again for every body: the command runs
   * with the quick compiler only, which does not remove a short-lived object, and these were a
   * fifth of what a table of every record set allocated.
   */
  private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
  private final Schema schema;
  private final List<String> leftOut;
  private final int width;
  /** Each record schema's fields as written, made once. */
  private final Map<Schema, Fields> fields = new ConcurrentHashMap<>();

  private AvroSummary(Schema schema, List<String> leftOut, int width) {
    this.schema = schema;
    this.leftOut = List.copyOf(leftOut);
    this.width = width;
  }

  /** A writer of summaries for bodies of {@code schema}, or null when it holds a type this does not read. */
  static AvroSummary of(Schema schema, List<String> leftOut, int width) {
    return readable(schema, new HashSet<>()) ? new AvroSummary(schema, leftOut, width) : null;
  }

  /**
   * The summary {@link AvroJson#summary} gives for the record this body holds.
   *
   * @throws IOException or a runtime exception of Avro's decoder when the body is damaged
   */
  String summary(byte[] data, int offset, int length) throws IOException {
    Scratch scratch = SCRATCH.get();
    BinaryDecoder in = DECODERS.binaryDecoder(data, offset, length, scratch.decoder);
    scratch.decoder = in;
    StringBuilder line = scratch.line;
    line.setLength(0);
    record(schema, leftOut, false, in, line, scratch.text);
    if (!in.isEnd()) {
      throw new IOException("bytes left over after the record");
    }
    if (line.length() > width) {
      line.setLength(width - 3);
      line.append("...");
    }
    return line.toString();
  }

  /**
   * Appends the record's fields not at their default, less {@code leftOut}. Past the width a value
   * is read without being written, as nothing after the width is shown, unless it is {@code
   * whole}: within a field that has a default, every value is written, so that it can be told
   * from its default (and removed, which can bring the line back within the width).
   */
  private void record(Schema record, List<String> leftOut, boolean whole, BinaryDecoder in, StringBuilder line,
      Utf8 text) throws IOException {
    if (line == null) {
      for (Schema.Field field : fieldsOf(record).all) {
        value(field.schema(), false, in, null, text);
      }
      return;
    }
    Fields fields = fieldsOf(record);
    line.append('{');
    boolean first = true;
    for (Schema.Field field : fields.all) {
      int pos = field.pos();
      if (!whole && line.length() > width || leftOut.contains(field.name())) {
        value(field.schema(), false, in, null, text);
        continue;
      }
      String name = first ? fields.firstNames[pos] : fields.nextNames[pos];
      String fieldDefault = fields.defaults[pos];
      if (!whole && fields.emptyDefault[pos]) {
        // a null or empty default is told from the value's first item: the value needs no whole writing
        if (!atEmptyDefault(field.schema(), in, name, line, text)) {
          first = false;
        }
        continue;
      }
      int start = line.length();
      line.append(name);
      int valueStart = line.length();
      value(field.schema(), whole || fieldDefault != null, in, line, text);
      if (fieldDefault != null && equals(line, valueStart, fieldDefault)) {
        line.setLength(start);
      } else {
        first = false;
      }
    }
    line.append('}');
  }

  /**
   * A field whose default is null (a union's null branch) or empty (an array of none): reads its
   * first item, and appends {@code name} and the value unless it is at that default.
   *
   * @return whether the value was at its default (and nothing was appended)
   */
  private boolean atEmptyDefault(Schema type, BinaryDecoder in, String name, StringBuilder line, Utf8 text)
      throws IOException {
    if (type.getType() == Schema.Type.UNION) {
      Schema branch = type.getTypes().get(in.readIndex());
      if (branch.getType() == Schema.Type.NULL) {
        in.readNull();
        return true;
      }
      line.append(name);
      value(branch, false, in, line, text);
      return false;
    }
    long block = in.readArrayStart();
    if (block == 0) {
      return true;
    }
    line.append(name);
    array(type, block, false, in, line, text);
    return false;
  }

  private Fields fieldsOf(Schema record) {
    return fields.computeIfAbsent(record, Fields::new);
  }

  /** Whether the line from {@code start} to its end is {@code text}. */
  private static boolean equals(StringBuilder line, int start, String text) {
    if (line.length() - start != text.length()) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      if (line.charAt(start + i) != text.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** A record schema's fields as written: their names quoted, first and after a comma, and their defaults' text. */
  private static final class Fields {
    /** The fields, in an array: walking it makes no iterator. */
    final Schema.Field[] all;
    final String[] firstNames;
    final String[] nextNames;
    /** Each field's default as {@link AvroJson#summary} writes a value (at its default when the texts are equal); null without one. */
    final String[] defaults;
    /**
     * Whether a field's default is a union's null or an empty array: the only values written as
     * {@code null} or {@code []}, so that a value is at its default exactly when its first item says so.
     */
    final boolean[] emptyDefault;

    Fields(Schema record) {
      all = record.getFields().toArray(new Schema.Field[0]);
      int n = all.length;
      firstNames = new String[n];
      nextNames = new String[n];
      defaults = new String[n];
      emptyDefault = new boolean[n];
      Object[] values = AvroJson.defaults(record);
      for (Schema.Field field : record.getFields()) {
        StringBuilder name = new StringBuilder();
        AvroJson.quoted(field.name(), name);
        firstNames[field.pos()] = name.append(':').toString();
        nextNames[field.pos()] = "," + firstNames[field.pos()];
        if (field.hasDefaultValue()) {
          StringBuilder value = new StringBuilder();
          AvroJson.compact(values[field.pos()], field.schema(), value, Integer.MAX_VALUE);
          defaults[field.pos()] = value.toString();
          Schema.Type type = field.schema().getType();
          emptyDefault[field.pos()] = type == Schema.Type.UNION && defaults[field.pos()].equals("null")
              || type == Schema.Type.ARRAY && defaults[field.pos()].equals("[]");
        }
      }
    }
  }

  /**
   * Reads one value, appending it to {@code line} as {@link AvroJson#summary} writes it (null, or
   * past the width and not {@code whole}: reads only).
   */
  private void value(Schema type, boolean whole, BinaryDecoder in, StringBuilder line, Utf8 text)
      throws IOException {
    if (line != null && !whole && line.length() > width) {
      line = null;
    }
    switch (type.getType()) {
      case NULL -> {
        in.readNull();
        append(line, "null");
      }
      case UNION -> value(type.getTypes().get(in.readIndex()), whole, in, line, text);
      case RECORD -> record(type, List.of(), whole, in, line, text);
      case ARRAY -> array(type, in.readArrayStart(), whole, in, line, text);
      case ENUM -> {
        String symbol = type.getEnumSymbols().get(in.readEnum());
        if (line != null) {
          AvroJson.quoted(symbol, line);
        }
      }
      case STRING -> {
        if (line == null) {
          in.skipString();
        } else {
          quoted(in.readString(text), line);
        }
      }
      case BOOLEAN -> {
        boolean b = in.readBoolean();
        if (line != null) {
          line.append(b);
        }
      }
      case INT, LONG -> {
        long n = type.getType() == Schema.Type.INT ? in.readInt() : in.readLong();
        if (line != null) {
          line.append(n);
        }
      }
      case DOUBLE -> {
        double d = in.readDouble();
        if (line != null) {
          AvroJson.number(d, line);
        }
      }
      default -> throw new IllegalStateException("unreadable type " + type.getType() + " passed the check");
    }
  }

  /** Reads an array whose first block of {@code block} items is announced, appending it as {@link #value} does. */
  private void array(Schema type, long block, boolean whole, BinaryDecoder in, StringBuilder line, Utf8 text)
      throws IOException {
    append(line, "[");
    boolean first = true;
    for (long n = block; n > 0; n = in.arrayNext()) {
      for (long i = 0; i < n; i++) {
        append(line, first ? "" : ",");
        first = false;
        value(type.getElementType(), whole, in, line, text);
      }
    }
    append(line, "]");
  }

  private static void append(StringBuilder line, String text) {
    if (line != null) {
      line.append(text);
    }
  }

  /** Text as {@link AvroJson#quoted} writes it; ASCII that needs no escape goes byte by byte, without a String. */
  private static void quoted(Utf8 text, StringBuilder line) {
    byte[] bytes = text.getBytes();
    int length = text.getByteLength();
    for (int i = 0; i < length; i++) {
      byte b = bytes[i];
      if (b < 0x20 || b == '"' || b == '\\') { // negative: a byte of a multi-byte character
        AvroJson.quoted(new String(bytes, 0, length, StandardCharsets.UTF_8), line);
        return;
      }
    }
    line.append('"');
    for (int i = 0; i < length; i++) {
      line.append((char) bytes[i]);
    }
    line.append('"');
  }

  /** What one thread reads a body with. */
  private static final class Scratch {
    BinaryDecoder decoder;
    final StringBuilder line = new StringBuilder(256);
    final Utf8 text = new Utf8();
  }

  /** Whether every type {@code type} holds is one {@link #value} reads the way the decoded record would be written. */
  private static boolean readable(Schema type, Set<Schema> seen) {
    return switch (type.getType()) {
      case RECORD -> !seen.add(type) || type.getFields().stream().allMatch(f -> readable(f.schema(), seen));
      case UNION -> type.getTypes().stream().allMatch(t -> readable(t, seen));
      case ARRAY -> readable(type.getElementType(), seen);
      // a logical type (a timestamp, say) is written from its Java value, not from the number
      case LONG, INT, STRING -> type.getLogicalType() == null;
      case NULL, BOOLEAN, DOUBLE, ENUM -> true;
      default -> false; // maps, bytes, fixed and floats: the configuration has none
    };
  }
}
