package io.healthmesh.cli.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Documents parsed apart are the documents of the whole stream, with the same names and line numbers. */
class DocumentSplitterTest {
  private static final String[] STREAMS = {
      "kind: A\n---\nkind: B\n",
      "---\nkind: A\n---\nkind: B",
      "# a comment\n\n---\nkind: A\n",
      "kind: A\n---\n---\n# only a comment\n---\nkind: B\n",
      "kind: A\r\n---\r\nkind: B\r\n",
      "\uFEFF# bom\n---\nkind: A\n---\nkind: B\n",
      "kind: A\ntext: |\n  ---not a marker\n  line\n---\nkind: B\n",
      "--- {kind: A}\n--- {kind: B}\n",
      "kind: A\n---\nkind: [\n---\nkind: C\n",
      "%YAML 1.2\n---\nkind: A\n...\n---\nkind: B\n",
      "kind: A\n...\nkind: B\n",
      "",
      "\n\n# nothing\n",
  };

  @Test
  void piecesParseToTheWholeStreamsDocuments_whateverTheStreamHolds() {
    for (String stream : STREAMS) {
      for (int pieceBytes : new int[] {1, 12, 1 << 16}) {
        assertSameDocuments(stream, pieceBytes);
      }
    }
  }

  private static void assertSameDocuments(String stream, int pieceBytes) {
    byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
    Documents.Loaded whole = Documents.parse(new Documents.Piece("f", 0, 0, bytes));
    List<String> cut = new ArrayList<>();
    for (Documents.Piece piece : DocumentSplitter.split("f", bytes, pieceBytes)) {
      Documents.Loaded loaded = Documents.parse(piece);
      loaded.documents().forEach(d -> cut.add(d.origin() + " " + d.body()));
      cut.addAll(loaded.problems());
    }
    List<String> expected = new ArrayList<>();
    whole.documents().forEach(d -> expected.add(d.origin() + " " + d.body()));
    expected.addAll(whole.problems());
    if (whole.problems().isEmpty()) {
      assertThat(cut).as(stream).isEqualTo(expected);
    } else {
      // The whole stream stops at its first broken document, whose parser saw more of the text;
      // apart, the same document is named broken and the ones after it are read too.
      whole.documents().forEach(d -> assertThat(cut).as(stream).contains(d.origin() + " " + d.body()));
      whole.problems().forEach(p -> assertThat(cut).as(stream)
          .anySatisfy(c -> assertThat(c).startsWith(p.substring(0, p.indexOf(": syntax error") + 14))));
    }
  }

  @Test
  void cutsAtMarkers_whenTheStreamIsPlainUtf8() {
    assertThat(DocumentSplitter.split("f", "kind: A\n---\nkind: B\n---\nkind: C\n".getBytes(StandardCharsets.UTF_8), 1))
        .extracting(Documents.Piece::index, Documents.Piece::firstLine)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(0, 0), org.assertj.core.groups.Tuple.tuple(1, 1),
            org.assertj.core.groups.Tuple.tuple(2, 3));
    assertThat(DocumentSplitter.split("f", "kind: A\n---\nkind: B\n---\nkind: C\n".getBytes(StandardCharsets.UTF_8), 12))
        .extracting(Documents.Piece::index, Documents.Piece::firstLine)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(0, 0), org.assertj.core.groups.Tuple.tuple(2, 3));
  }

  @Test
  void leavesTheStreamWhole_whenItHasDirectivesOrEndMarkersOrIsNotUtf8() {
    assertThat(DocumentSplitter.split("f", "%YAML 1.2\n---\nkind: A\n---\nkind: B\n".getBytes(StandardCharsets.UTF_8)))
        .hasSize(1);
    assertThat(DocumentSplitter.split("f", "kind: A\n...\n---\nkind: B\n".getBytes(StandardCharsets.UTF_8))).hasSize(1);
    assertThat(DocumentSplitter.split("f", "kind: A\n---\nkind: B\n".getBytes(StandardCharsets.UTF_16))).hasSize(1);
  }
}
