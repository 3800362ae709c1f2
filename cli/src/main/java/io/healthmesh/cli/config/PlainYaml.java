package io.healthmesh.cli.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The YAML that configuration files are written in, read at the speed of the bytes: block
 * mappings and sequences, flow collections (over several lines too), plain and quoted one-line
 * scalars, comments. Everything else (anchors, tags, block scalars, multi-line plain scalars,
 * empty values, escapes beyond the simple ones, scalars YAML 1.1 could type as a float, an octal,
 * a sexagesimal or a boolean word) makes it give up on the whole piece, which the full parser then
 * reads, errors and all. Where it answers, it answers exactly what the full parser would: the
 * same tree, numbers as the same node types (a test parses every case both ways). A large apply
 * is mostly YAML parsing, and the full parser spends most of it resolving what each scalar may be.
 */
final class PlainYaml {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  /** Words YAML 1.1 gives a type other than string: left to the full parser, but for true and false. */
  private static final Set<String> TYPED_WORDS = Set.of("yes", "no", "on", "off", "true", "false", "null", "y", "n");
  private final byte[] b;
  private int pos;
  private int depth;

  /** The parser gave up: what follows is not in the subset it reads. */
  private static final class GiveUp extends RuntimeException {
    private static final GiveUp INSTANCE = new GiveUp();

    private GiveUp() {
      super(null, null, false, false);
    }
  }

  private PlainYaml(byte[] text) {
    this.b = text;
  }

  /** The piece's documents in order, or null when the full parser must read it. */
  static List<JsonNode> parse(byte[] text) {
    try {
      return new PlainYaml(text).documents();
    } catch (GiveUp | StackOverflowError e) {
      return null;
    }
  }

  private List<JsonNode> documents() {
    boolean ascii = true;
    for (byte c : b) {
      if (c == '\t' || c == 0 || (c == '\r')) {
        throw GiveUp.INSTANCE; // tabs, NULs and carriage returns: the full parser's business
      }
      ascii &= c >= 0;
    }
    if (!ascii && !utf8(b)) {
      throw GiveUp.INSTANCE; // the full parser says where the text is not UTF-8
    }
    List<JsonNode> documents = new ArrayList<>();
    boolean marked = false;
    while (true) {
      skipBlankLines();
      if (pos >= b.length) {
        if (marked) {
          throw GiveUp.INSTANCE; // an empty document after a marker
        }
        return documents;
      }
      if (isMarker(pos)) {
        if (marked) {
          throw GiveUp.INSTANCE; // an empty document between two markers
        }
        pos += 3;
        restOfLineBlank();
        marked = true;
        continue;
      }
      documents.add(blockNode(indentAt(pos), -1));
      marked = false;
      skipBlankLines();
      if (pos < b.length && !isMarker(pos)) {
        throw GiveUp.INSTANCE; // content less indented than the root: an error the full parser words
      }
      if (pos >= b.length) {
        return documents;
      }
      pos += 3;
      restOfLineBlank();
      marked = true;
    }
  }

  /** One level deeper; the full parser words what nests too deep. */
  private void enter() {
    if (++depth > Documents.MAX_DEPTH - 2) {
      throw GiveUp.INSTANCE;
    }
  }

  private static boolean utf8(byte[] text) {
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(text));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  /** The block node whose first line starts at {@code pos} with {@code indent} spaces; {@code parent} is the indent above. */
  private JsonNode blockNode(int indent, int parent) {
    enter();
    pos = lineStart(pos) + indent;
    JsonNode node;
    if (isDash(pos)) {
      node = sequence(indent);
    } else if (b[pos] == '[' || b[pos] == '{') {
      node = flow(parent);
      restOfLineBlank();
    } else {
      node = mapping(indent, indent);
    }
    depth--;
    return node;
  }

  /** A block mapping whose keys are at {@code indent}; its first key starts at {@code column} of the current line. */
  private ObjectNode mapping(int indent, int column) {
    ObjectNode map = NODES.objectNode();
    boolean first = true;
    while (true) {
      if (!first) {
        skipBlankLines();
        if (pos >= b.length || isMarker(pos) || indentAt(pos) < indent) {
          return map;
        }
        if (indentAt(pos) > indent) {
          throw GiveUp.INSTANCE;
        }
        pos += indent;
      }
      first = false;
      String key = key(false);
      if (map.has(key)) {
        throw GiveUp.INSTANCE; // a duplicate: the full parser says where
      }
      map.set(key, value(indent));
    }
  }

  /** A mapping's value after its key's {@code ': '}. */
  private JsonNode value(int indent) {
    skipSpaces();
    if (atLineEnd()) {
      skipBlankLines();
      if (pos >= b.length || isMarker(pos)) {
        throw GiveUp.INSTANCE; // an empty value
      }
      int next = indentAt(pos);
      if (next > indent) {
        return blockNode(next, indent);
      }
      if (next == indent && isDash(pos + next)) {
        return blockNode(next, indent - 1); // a sequence may sit at its key's indent
      }
      throw GiveUp.INSTANCE;
    }
    return inlineValue(indent);
  }

  /** What follows a key or a dash on the same line. */
  private JsonNode inlineValue(int indent) {
    byte c = b[pos];
    if (c == '[' || c == '{') {
      JsonNode node = flow(indent);
      restOfLineBlank();
      return node;
    }
    if (c == '"' || c == '\'') {
      TextNode text = quoted();
      restOfLineBlank();
      return text;
    }
    int start = pos;
    int end = plainEnd(false);
    String text = new String(b, start, end - start, StandardCharsets.UTF_8);
    pos = end;
    restOfLineBlank();
    // a plain scalar that goes on over the next lines
    int save = pos;
    skipBlankLines();
    boolean continued = pos < b.length && !isMarker(pos) && indentAt(pos) > indent && !isDash(pos + indentAt(pos));
    pos = save;
    if (continued) {
      throw GiveUp.INSTANCE;
    }
    return scalar(text);
  }

  private ArrayNode sequence(int indent) {
    ArrayNode list = NODES.arrayNode();
    while (true) {
      pos += 1; // the dash
      skipSpaces();
      if (atLineEnd()) {
        skipBlankLines();
        int next = pos < b.length ? indentAt(pos) : -1;
        if (next <= indent || isMarker(pos)) {
          throw GiveUp.INSTANCE; // an empty item
        }
        list.add(blockNode(next, indent));
      } else if (isDash(pos)) {
        throw GiveUp.INSTANCE; // "- - a"
      } else if (startsKey()) {
        int column = pos - lineStart(pos);
        enter();
        list.add(mapping(column, column));
        depth--;
      } else {
        list.add(inlineValue(indent));
      }
      skipBlankLines();
      if (pos >= b.length || isMarker(pos) || indentAt(pos) != indent || !isDash(pos + indent)) {
        if (pos < b.length && !isMarker(pos) && indentAt(pos) > indent) {
          throw GiveUp.INSTANCE;
        }
        return list;
      }
      pos += indent;
    }
  }

  /** Whether the item's text starts a compact mapping ({@code - key: value}). */
  private boolean startsKey() {
    int save = pos;
    try {
      key(false);
      return true;
    } catch (GiveUp e) {
      return false;
    } finally {
      pos = save;
    }
  }

  /** A mapping key and its colon, in a block or a flow mapping: quoted, or plain text that YAML reads as a string. */
  private String key(boolean inFlow) {
    String key;
    if (b[pos] == '"' || b[pos] == '\'') {
      key = quoted().textValue();
    } else if (inFlow) {
      int start = pos;
      pos = plainEnd(true);
      key = new String(b, start, pos - start, StandardCharsets.UTF_8);
    } else {
      int start = pos;
      while (pos < b.length && b[pos] != '\n' && !(b[pos] == ':' && separated(pos + 1))) {
        if (b[pos] == '#' && b[pos - 1] == ' ') {
          throw GiveUp.INSTANCE;
        }
        pos++;
      }
      int end = pos;
      while (end > start && b[end - 1] == ' ') {
        end--;
      }
      if (end == start || indicator(b[start])) {
        throw GiveUp.INSTANCE;
      }
      key = new String(b, start, end - start, StandardCharsets.UTF_8);
    }
    skipSpaces();
    if (pos >= b.length || b[pos] != ':' || !separated(pos + 1)) {
      throw GiveUp.INSTANCE; // a key without a value, or "a:b"
    }
    pos++;
    return key;
  }

  /** A flow collection, over as many lines as it takes, each indented more than {@code indent}. */
  private JsonNode flow(int indent) {
    enter();
    boolean map = b[pos] == '{';
    byte close = (byte) (map ? '}' : ']');
    pos++;
    ObjectNode object = map ? NODES.objectNode() : null;
    ArrayNode array = map ? null : NODES.arrayNode();
    flowSpace(indent);
    if (b[pos] == close) {
      pos++;
      depth--;
      return map ? object : array;
    }
    while (true) {
      if (map) {
        String key = key(true);
        flowSpace(indent);
        if (object.has(key)) {
          throw GiveUp.INSTANCE;
        }
        object.set(key, flowValue(indent));
      } else {
        array.add(flowValue(indent));
      }
      flowSpace(indent);
      if (b[pos] == close) {
        pos++;
        depth--;
        return map ? object : array;
      }
      if (b[pos] != ',') {
        throw GiveUp.INSTANCE;
      }
      pos++;
      flowSpace(indent);
      if (b[pos] == close) {
        throw GiveUp.INSTANCE; // a trailing comma
      }
    }
  }

  private JsonNode flowValue(int indent) {
    byte c = b[pos];
    if (c == '[' || c == '{') {
      return flow(indent);
    }
    if (c == '"' || c == '\'') {
      return quoted();
    }
    int start = pos;
    int end = plainEnd(true);
    pos = end;
    return scalar(new String(b, start, end - start, StandardCharsets.UTF_8));
  }

  /** Spaces and line breaks inside a flow collection; a continuation line must be indented past {@code indent}. */
  private void flowSpace(int indent) {
    while (true) {
      if (pos >= b.length) {
        throw GiveUp.INSTANCE; // unclosed
      }
      if (b[pos] == ' ') {
        pos++;
      } else if (b[pos] == '\n') {
        pos++;
        if (pos >= b.length || indentAt(pos) <= indent || b[pos + indentAt(pos)] == '#'
            || b[pos + indentAt(pos)] == '\n') {
          throw GiveUp.INSTANCE;
        }
      } else if (b[pos] == '#') {
        throw GiveUp.INSTANCE;
      } else {
        return;
      }
    }
  }

  /**
   * The end of a plain scalar starting at {@code pos}, trailing spaces left out: at a line's end,
   * a comment, or (in a flow collection) one of {@code ,[]{}} or a key's {@code ': '}. Its first
   * character must not be an indicator; other colons are left to the full parser, but for
   * {@code http://} in a block value.
   */
  private int plainEnd(boolean inFlow) {
    int start = pos;
    if (pos >= b.length || indicator(b[pos]) || b[pos] == '\n' || b[pos] == '-' && separated(pos + 1)) {
      throw GiveUp.INSTANCE;
    }
    int at = pos;
    while (at < b.length && b[at] != '\n') {
      byte c = b[at];
      if (c == '#' && b[at - 1] == ' ') {
        break;
      }
      if (inFlow && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}')) {
        break;
      }
      if (c == ':' && (inFlow || separated(at + 1))) {
        if (inFlow && separated(at + 1)) {
          break; // a flow mapping's key ends here; anywhere else the caller gives up at the colon
        }
        throw GiveUp.INSTANCE; // "a: b: c", or "a:b" in a flow collection
      }
      at++;
    }
    int end = at;
    while (end > start && b[end - 1] == ' ') {
      end--;
    }
    if (end == start) {
      throw GiveUp.INSTANCE;
    }
    return end;
  }

  /** A one-line quoted scalar; double-quoted ones with the escapes {@code \" \\ \/} only. */
  private TextNode quoted() {
    byte quote = b[pos++];
    StringBuilder text = null;
    int start = pos;
    while (true) {
      if (pos >= b.length || b[pos] == '\n') {
        throw GiveUp.INSTANCE; // over several lines
      }
      byte c = b[pos];
      if (quote == '\'' && c == '\'' && pos + 1 < b.length && b[pos + 1] == '\'') {
        text = append(text, start, pos + 1);
        pos += 2;
        start = pos;
      } else if (c == quote) {
        text = append(text, start, pos);
        pos++;
        return TextNode.valueOf(text.toString());
      } else if (quote == '"' && c == '\\') {
        byte e = pos + 1 < b.length ? b[pos + 1] : 0;
        if (e != '"' && e != '\\' && e != '/') {
          throw GiveUp.INSTANCE;
        }
        text = append(text, start, pos);
        text.append((char) e);
        pos += 2;
        start = pos;
      } else {
        pos++;
      }
    }
  }

  private StringBuilder append(StringBuilder text, int from, int to) {
    StringBuilder out = text == null ? new StringBuilder() : text;
    return out.append(new String(b, from, to - from, StandardCharsets.UTF_8));
  }

  /**
   * A plain scalar as YAML 1.1's resolver (the full parser's) types it, where that is certain: a
   * decimal integer of up to nine digits, a plain decimal fraction, true or false, or text that no
   * other type can match.
   */
  static JsonNode scalar(String s) {
    char c = s.charAt(0);
    if (c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.') {
      return number(s);
    }
    if (c == '~' || c == '<' || c == '=') {
      throw GiveUp.INSTANCE;
    }
    if (s.length() <= 5 && TYPED_WORDS.contains(s.toLowerCase(java.util.Locale.ROOT))) {
      if (s.equals("true") || s.equals("false")) {
        return BooleanNode.valueOf(s.equals("true"));
      }
      throw GiveUp.INSTANCE;
    }
    return TextNode.valueOf(s);
  }

  /**
   * What starts like a number: a decimal integer of up to nine digits, a plain decimal fraction,
   * or text with two dots or more (an address, a CIDR) and no colon, underscore, space, letter e
   * or inner minus, which YAML 1.1 can read as neither a number, a sexagesimal nor a timestamp.
   */
  private static JsonNode number(String s) {
    int n = s.length();
    int i = s.charAt(0) == '-' ? 1 : 0;
    int digits = 0;
    while (i + digits < n && isDigit(s.charAt(i + digits))) {
      digits++;
    }
    boolean leadingZero = digits > 1 && s.charAt(i) == '0';
    if (digits > 0 && digits <= 9 && !leadingZero) {
      if (i + digits == n && !(i == 1 && s.charAt(1) == '0')) {
        return IntNode.valueOf(Integer.parseInt(s));
      }
      int fraction = 0;
      if (i + digits < n && s.charAt(i + digits) == '.') {
        while (i + digits + 1 + fraction < n && isDigit(s.charAt(i + digits + 1 + fraction))) {
          fraction++;
        }
        if (fraction > 0 && fraction <= 9 && i + digits + 1 + fraction == n) {
          return DoubleNode.valueOf(Double.parseDouble(s)); // a trickle fraction, a percentage
        }
      }
    }
    int dots = 0;
    for (int k = 0; k < n; k++) {
      char x = s.charAt(k);
      dots += x == '.' ? 1 : 0;
      if (x == ':' || x == '_' || x == 'e' || x == 'E' || x == ' ' || x == '-' && k > 0) {
        throw GiveUp.INSTANCE;
      }
    }
    char c = s.charAt(0);
    if (dots < 2 || c != '.' && !isDigit(c)) {
      throw GiveUp.INSTANCE;
    }
    return TextNode.valueOf(s);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** Characters that cannot start a plain scalar or key here. */
  private static boolean indicator(byte c) {
    return switch (c) {
      case '[', ']', '{', '}', ',', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', '?', ':' -> true;
      default -> false;
    };
  }

  /** Whether {@code at} is a space, a line's end or the text's end: what makes a colon or a dash an indicator. */
  private boolean separated(int at) {
    return at >= b.length || b[at] == ' ' || b[at] == '\n';
  }

  private boolean isDash(int at) {
    return at < b.length && b[at] == '-' && separated(at + 1);
  }

  private boolean isMarker(int at) {
    return at + 2 < b.length && b[at] == '-' && b[at + 1] == '-' && b[at + 2] == '-' && separated(at + 3)
        && (at == 0 || b[at - 1] == '\n');
  }

  private int lineStart(int at) {
    int s = at;
    while (s > 0 && b[s - 1] != '\n') {
      s--;
    }
    return s;
  }

  /** Spaces at the start of the line that starts at {@code lineStart}. */
  private int indentAt(int lineStart) {
    int i = lineStart;
    while (i < b.length && b[i] == ' ') {
      i++;
    }
    return i - lineStart;
  }

  private void skipSpaces() {
    while (pos < b.length && b[pos] == ' ') {
      pos++;
    }
  }

  private boolean atLineEnd() {
    return pos >= b.length || b[pos] == '\n' || b[pos] == '#';
  }

  /** After a value: only spaces or a comment up to the line's end, which is passed. */
  private void restOfLineBlank() {
    skipSpaces();
    if (pos < b.length && b[pos] == '#') {
      if (b[pos - 1] != ' ' && b[pos - 1] != '\n') {
        throw GiveUp.INSTANCE;
      }
      while (pos < b.length && b[pos] != '\n') {
        pos++;
      }
    }
    if (pos < b.length && b[pos] != '\n') {
      throw GiveUp.INSTANCE;
    }
    if (pos < b.length) {
      pos++;
    }
  }

  /** To the start of the next line with content, past blank and comment-only lines. */
  private void skipBlankLines() {
    if (pos > 0 && pos < b.length && b[pos - 1] != '\n') {
      restOfLineBlank();
    }
    while (pos < b.length) {
      int i = pos;
      while (i < b.length && b[i] == ' ') {
        i++;
      }
      if (i >= b.length) {
        pos = b.length;
        return;
      }
      if (b[i] == '\n' || b[i] == '#') {
        while (i < b.length && b[i] != '\n') {
          i++;
        }
        pos = Math.min(i + 1, b.length);
      } else {
        return;
      }
    }
  }
}
