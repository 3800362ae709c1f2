package io.healthmesh.cli.config;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * YAML anchors ({@code &name}) and aliases ({@code *name}) resolved as the YAML spec says, over
 * Jackson's parser, which by itself hands an alias over as the text of its name. Each anchored
 * value's tokens are recorded as they pass; an alias replays them, so scalars keep exactly the
 * types Jackson gives them elsewhere in the file.
 *
 * <p>An alias bomb (aliases of aliases, each level multiplying the one below) is stopped by the
 * same two limits SnakeYAML applies: the number of aliases to collections, and the tokens all
 * aliases expand to.
 */
final class Aliases extends JsonParserDelegate {
  /** SnakeYAML's default: a configuration that needs more is better written out. */
  static final int MAX_COLLECTION_ALIASES = 50;
  /** Tokens all aliases of one piece may expand to; a record set is a few dozen. */
  static final int MAX_EXPANDED_TOKENS = 1_000_000;

  private final YAMLParser yaml;
  private final Map<String, Anchored> anchors = new HashMap<>();
  private final List<Recording> recordings = new ArrayList<>();
  private JsonParser replay;
  private int collectionAliases;
  private long expanded;
  private int depth;
  private boolean mergeKeys;

  Aliases(YAMLParser yaml) {
    super(yaml);
    this.yaml = yaml;
  }

  /** Whether YAML text may hold an anchor ({@code &}), an alias ({@code *}) or a merge key ({@code <<}). */
  static boolean mayUse(byte[] text) {
    for (int i = 0; i < text.length; i++) {
      byte b = text[i];
      if (b == '&' || b == '*' || (b == '<' && i + 1 < text.length && text[i + 1] == '<')) {
        return true;
      }
    }
    return false;
  }

  /** Whether a {@code <<} key passed: the caller then merges ({@link #merge}). */
  boolean sawMergeKeys() {
    return mergeKeys;
  }

  /** An anchored value's tokens, and how many there are. */
  private record Anchored(TokenBuffer tokens, long size) {}

  /** An anchored value whose tokens are still being recorded. */
  private static final class Recording {
    final String anchor;
    final TokenBuffer tokens;
    int depth;
    long size;

    Recording(String anchor, TokenBuffer tokens) {
      this.anchor = anchor;
      this.tokens = tokens;
    }
  }

  @Override
  public JsonToken nextToken() throws IOException {
    if (replay != null) {
      JsonToken token = replay.nextToken();
      if (token != null) {
        record(token);
        return token;
      }
      replay.close();
      replay = null;
      delegate = yaml;
    }
    JsonToken token = yaml.nextToken();
    if (token == null) {
      return null;
    }
    if (depth == 0) {
      anchors.clear(); // a new document: YAML anchors do not cross documents
    }
    if (token == JsonToken.FIELD_NAME && "<<".equals(yaml.currentName())) {
      mergeKeys = true;
    }
    if (yaml.isCurrentAlias()) {
      return startReplay(yaml.getText());
    }
    String anchor = token == JsonToken.FIELD_NAME ? null : yaml.getObjectId();
    if (anchor != null) {
      recordings.add(new Recording(anchor, new TokenBuffer(yaml, null)));
    }
    record(token);
    return token;
  }

  private JsonToken startReplay(String name) throws IOException {
    Anchored anchored = anchors.get(name);
    if (anchored == null) {
      throw new JsonParseException(this, "alias *" + name + " refers to no anchor &" + name + " before it");
    }
    JsonParser values = anchored.tokens().asParser();
    JsonToken first = values.nextToken();
    if (first.isStructStart() && ++collectionAliases > MAX_COLLECTION_ALIASES) {
      throw new JsonParseException(this, "more than " + MAX_COLLECTION_ALIASES
          + " aliases of lists or maps; write the values out");
    }
    expanded += anchored.size();
    if (expanded > MAX_EXPANDED_TOKENS) {
      throw new JsonParseException(this, "aliases expand to more than " + MAX_EXPANDED_TOKENS
          + " values; write the values out");
    }
    replay = values;
    delegate = values;
    record(first);
    return first;
  }

  /** Adds the current token to every value being recorded; a value whose last token this is gets its anchor. */
  private void record(JsonToken token) throws IOException {
    if (token.isStructStart()) {
      depth++;
    } else if (token.isStructEnd()) {
      depth--;
    }
    for (Iterator<Recording> it = recordings.iterator(); it.hasNext(); ) {
      Recording r = it.next();
      r.tokens.copyCurrentEvent(delegate);
      r.size++;
      if (token.isStructStart()) {
        r.depth++;
      } else if (token.isStructEnd()) {
        r.depth--;
      }
      if (r.depth == 0) {
        anchors.put(r.anchor, new Anchored(r.tokens, r.size)); // a later anchor of the same name replaces it, as YAML says
        it.remove();
      }
    }
  }

  /**
   * YAML's merge keys, as kubectl and SnakeYAML take them: {@code <<: *base} (or a list of maps)
   * adds the fields of the map that are not set beside it; in a list the first map wins.
   */
  static void merge(JsonNode node) {
    if (node instanceof ObjectNode object) {
      JsonNode sources = object.remove("<<");
      if (sources != null) {
        List<JsonNode> maps = new ArrayList<>();
        (sources.isArray() ? sources : List.of(sources)).forEach(maps::add);
        for (JsonNode map : maps) {
          if (!map.isObject()) {
            throw new IllegalArgumentException("<<: merges maps only, not " + map.getNodeType().name().toLowerCase(
                Locale.ROOT));
          }
          map.fields().forEachRemaining(f -> {
            if (!object.has(f.getKey())) {
              object.set(f.getKey(), f.getValue());
            }
          });
        }
      }
    }
    node.forEach(Aliases::merge);
  }
}
