package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ApplyCommandTest {
  @Test
  void printsEveryItemsTextInTheItemsOrder_acrossChunksMadeSideBySide() {
    StringWriter text = new StringWriter();
    try (PrintWriter out = new PrintWriter(text)) {
      ApplyCommand.printInOrder(out, 10_000, i -> i + "\n"); // more than two chunks, the last one short
    }
    assertThat(text.toString()).isEqualTo(IntStream.range(0, 10_000).mapToObj(i -> i + "\n").collect(Collectors.joining()));
  }

  @Test
  void printsNothing_whenThereAreNoItems() {
    StringWriter text = new StringWriter();
    try (PrintWriter out = new PrintWriter(text)) {
      ApplyCommand.printInOrder(out, 0, i -> "never");
    }
    assertThat(text.toString()).isEmpty();
  }
}
