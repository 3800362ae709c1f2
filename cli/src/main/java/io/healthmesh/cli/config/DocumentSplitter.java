package io.healthmesh.cli.config;

import io.healthmesh.cli.config.Documents.Piece;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Cuts a YAML stream into its documents at their {@code ---} lines, so that they can be parsed
 * apart. YAML forbids a {@code ---} line at column 0 inside any scalar, so the cut never splits a
 * value; a stream where cutting could change the meaning (directives, {@code ...} markers, an
 * encoding other than UTF-8) stays whole.
 */
final class DocumentSplitter {
  /**
   * Documents go together up to about this size: a parser per document costs a fifth of the
   * parsing, and pieces this size still keep every core busy.
   */
  private static final int PIECE_BYTES = 64 * 1024;

  private DocumentSplitter() {}

  static List<Piece> split(String name, byte[] text) {
    return split(name, text, PIECE_BYTES);
  }

  /** @param pieceBytes a piece ends at the first marker after this many bytes */
  static List<Piece> split(String name, byte[] text, int pieceBytes) {
    if (!cuttable(text)) {
      return List.of(new Piece(name, 0, 0, text));
    }
    List<Piece> pieces = new ArrayList<>();
    int documents = 0;
    int start = 0;
    int startLine = 0;
    int line = 0;
    for (int at = 0; at < text.length; line++) {
      if (at - start >= pieceBytes && marker(text, at)) {
        documents += add(pieces, name, documents, startLine, text, start, at);
        start = at;
        startLine = line;
      }
      at = endOfLine(text, at) + 1;
    }
    add(pieces, name, documents, startLine, text, start, text.length);
    return pieces;
  }

  /**
   * Adds the piece {@code [from, to)} unless it holds nothing; returns how many documents it
   * counts: one per marker, and one for text before the first marker that is not only blank lines
   * and comments.
   */
  private static int add(List<Piece> pieces, String name, int before, int firstLine, byte[] text, int from, int to) {
    int documents = 0;
    int firstMarker = -1;
    for (int at = from; at < to; at = endOfLine(text, at) + 1) {
      if (marker(text, at)) {
        documents++;
        firstMarker = firstMarker < 0 ? at : firstMarker;
      }
    }
    if (!blank(text, from, firstMarker < 0 ? to : firstMarker)) {
      documents++;
    }
    if (documents > 0) {
      pieces.add(new Piece(name, before, firstLine, Arrays.copyOfRange(text, from, to)));
    }
    return documents;
  }

  /** Whether the line at {@code at} is a document start: {@code ---} alone or followed by a space. */
  private static boolean marker(byte[] text, int at) {
    return startsLine(text, at, "---");
  }

  private static boolean startsLine(byte[] text, int at, String marker) {
    if (at + marker.length() > text.length) {
      return false;
    }
    for (int i = 0; i < marker.length(); i++) {
      if (text[at + i] != marker.charAt(i)) {
        return false;
      }
    }
    int next = at + marker.length();
    return next == text.length || text[next] == ' ' || text[next] == '\t' || text[next] == '\n' || text[next] == '\r';
  }

  /** UTF-8 (or ASCII) without directives and without document end markers. */
  private static boolean cuttable(byte[] text) {
    if (text.length >= 2 && ((text[0] & 0xff) == 0xfe || (text[0] & 0xff) == 0xff)) {
      return false; // a UTF-16 or UTF-32 byte order mark
    }
    for (int at = 0; at < text.length; at = endOfLine(text, at) + 1) {
      if (text[at] == '%' || startsLine(text, at, "...")) {
        return false;
      }
    }
    for (byte b : text) {
      if (b == 0) {
        return false; // UTF-16 or UTF-32 without a byte order mark
      }
    }
    return true;
  }

  private static boolean blank(byte[] text, int from, int to) {
    boolean comment = false;
    boolean bom = from == 0 && text.length >= 3 && (text[0] & 0xff) == 0xef && (text[1] & 0xff) == 0xbb
        && (text[2] & 0xff) == 0xbf;
    for (int i = from + (bom ? 3 : 0); i < to; i++) {
      byte b = text[i];
      if (b == '\n') {
        comment = false;
      } else if (b == '#') {
        comment = true;
      } else if (!comment && b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  private static int endOfLine(byte[] text, int at) {
    for (int i = at; i < text.length; i++) {
      if (text[i] == '\n') {
        return i;
      }
    }
    return text.length;
  }
}
