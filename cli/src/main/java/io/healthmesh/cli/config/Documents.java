package io.healthmesh.cli.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.CharConversionException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads {@code -f} arguments: a file, a directory (its {@code .yaml}, {@code .yml} and {@code .json}
 * files in name order) or {@code -} for standard input. YAML is a superset of JSON, so one parser
 * reads both, with {@code ---} separating documents.
 */
public final class Documents {
  /** Resources nest a few levels; anything near this deep is a mistake or an attack on the parser. */
  static final int MAX_DEPTH = 64;
  private static final YAMLFactory FACTORY = YAMLFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build()).build();
  /** A message that starts with the exception's class, as some of the YAML parser's do. */
  private static final Pattern JAVA_CLASS = Pattern.compile("^(?:[a-z][a-z0-9_]*\\.)+[A-Z]\\w*: ");
  private static final ObjectMapper YAML = new ObjectMapper(FACTORY)
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private Documents() {}

  /** What could be read, and every file or syntax problem. */
  public record Loaded(List<Document> documents, List<String> problems) {}

  /**
   * A document's text before it is parsed: documents are cut apart at their {@code ---} lines so
   * that many can be parsed at once (a large apply is mostly YAML parsing).
   *
   * @param index the number of documents of its stream before it
   * @param firstLine the number of lines of its stream before it
   */
  public record Piece(String name, int index, int firstLine, byte[] text) {}

  /** The documents of {@code -f} arguments, not yet parsed, with every file problem. */
  public record Pieces(List<Piece> pieces, List<String> problems) {}

  /** The pieces of files, directories and stdin ({@code -}). */
  public static Pieces split(List<String> paths, InputStream stdin) {
    List<Piece> pieces = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (String path : paths) {
      if (path.equals("-")) {
        Pieces read = split("<stdin>", stdin);
        pieces.addAll(read.pieces());
        problems.addAll(read.problems());
        continue;
      }
      for (Path file : files(Path.of(path), problems)) {
        try (InputStream in = Files.newInputStream(file)) {
          pieces.addAll(DocumentSplitter.split(file.toString(), in.readAllBytes()));
        } catch (IOException e) {
          problems.add(file + ": cannot read: " + e.getMessage());
        }
      }
    }
    return new Pieces(pieces, problems);
  }

  /** The pieces of one stream, named {@code name} in messages. */
  public static Pieces split(String name, InputStream in) {
    try {
      return new Pieces(DocumentSplitter.split(name, in.readAllBytes()), List.of());
    } catch (IOException e) {
      return new Pieces(List.of(), List.of(name + ": cannot read: " + e.getMessage()));
    }
  }

  private static List<Path> files(Path path, List<String> problems) {
    if (Files.isDirectory(path)) {
      try (Stream<Path> list = Files.list(path)) {
        return list.filter(p -> p.toString().matches(".*\\.(ya?ml|json)$")).sorted().toList();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    if (!Files.isReadable(path)) {
      problems.add(path + ": no such file or not readable");
      return List.of();
    }
    return List.of(path);
  }

  /** The documents of one piece (one, or none when it is empty), or its syntax problem. */
  public static Loaded parse(Piece piece) {
    // Anchors, aliases and merge keys cannot be written without these bytes; most files have none
    // and are parsed without the delegate that resolves them.
    boolean aliases = Aliases.mayUse(piece.text());
    // Most files are in the plain subset that is read without the full parser (PlainYaml).
    List<JsonNode> plain = aliases ? null : PlainYaml.parse(piece.text());
    if (plain != null) {
      List<Document> documents = new ArrayList<>();
      int index = piece.index();
      for (JsonNode node : plain) {
        documents.add(new Document(piece.name() + ":" + ++index, node));
      }
      return new Loaded(documents, List.of());
    }
    return parseFully(piece, aliases);
  }

  /** The documents of one piece as the full YAML parser reads them. */
  static Loaded parseFully(Piece piece, boolean aliases) {
    List<Document> documents = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    int index = piece.index();
    try (JsonParser parser = aliases ? new Aliases((YAMLParser) FACTORY.createParser(piece.text()))
        : FACTORY.createParser(piece.text());
        MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(parser)) {
      while (it.hasNextValue()) {
        JsonNode node = it.nextValue();
        index++;
        if (parser instanceof Aliases a && a.sawMergeKeys()) {
          Aliases.merge(node);
        }
        if (node != null && !node.isNull() && !node.isMissingNode()) {
          documents.add(new Document(piece.name() + ":" + index, node));
        }
      }
    } catch (StreamConstraintsException e) {
      problems.add(piece.name() + ":" + (index + 1) + ": syntax error: nested more than " + MAX_DEPTH + " levels deep");
    } catch (JsonProcessingException e) {
      problems.add(piece.name() + ":" + (index + 1) + ": " + syntaxProblem(piece, e));
    } catch (IOException | RuntimeException e) {
      problems.add(piece.name() + ":" + (index + 1) + ": cannot parse: "
          + (e.getMessage() == null ? "the document's structure is not supported" : e.getMessage()));
    }
    return new Loaded(documents, problems);
  }

  /** What is wrong with the text, in the user's terms: no Java class names. */
  private static String syntaxProblem(Piece piece, JsonProcessingException e) {
    String original = e.getOriginalMessage();
    String message = JAVA_CLASS.matcher(original).replaceFirst("");
    if (original.startsWith(CharConversionException.class.getName())) {
      // Its position counts characters from the piece's start, not lines, so it is left out.
      return "not UTF-8 text: " + message.replaceFirst("^Invalid", "invalid")
          .replaceFirst(" \\(at char #\\d+, byte #-?\\d+\\)$", "");
    }
    return "syntax error" + (e.getLocation() == null ? ""
        : " at line " + (piece.firstLine() + e.getLocation().getLineNr())) + ": " + message;
  }
}
