package io.healthmesh.cli;

import java.io.PrintWriter;

/**
 * A table as text, each column padded to its width like {@code %-Ns} (a longer value pushes the
 * rest of its row right), the last column unpadded: written row by row to the output ({@link
 * #row}), or made row by row ({@link #line}) by a caller that holds its rows already made.
 */
final class Columns {
  private final int[] widths;
  /** The padding after a value {@code n} characters short of its column, the separator included. */
  private final String[] blanks;
  /** The row {@link #row} is writing, made again for each: one writer at a time. */
  private final StringBuilder row = new StringBuilder(256);
  private char[] chars = new char[256];

  Columns(int... widths) {
    this.widths = widths.clone();
    int widest = 0;
    for (int width : widths) {
      widest = Math.max(widest, width);
    }
    blanks = new String[widest + 1];
    for (int pad = 0; pad <= widest; pad++) {
      blanks[pad] = " ".repeat(pad + 1);
    }
  }

  /**
   * One row, written to {@code out}: a value for each width, then the last column. Rows go out as
   * they come instead of into one text of the table, which for 100,000 rows was 17 MB grown by
   * copying, copied once more into a string, then encoded.
   */
  void row(PrintWriter out, String... values) {
    row.setLength(0);
    append(row, values);
    if (chars.length < row.length()) {
      chars = new char[2 * row.length()];
    }
    row.getChars(0, row.length(), chars, 0);
    out.write(chars, 0, row.length());
  }

  /**
   * The text {@link #row} would write for these values, its line end included, without writing it:
   * rows can be made ready on other threads, or as they arrive, and sorted before the table.
   */
  String line(String... values) {
    // made at its length: a status line is longer than a builder's guess, and growing it copied
    // as many bytes as the table has
    int length = System.lineSeparator().length();
    for (int i = 0; i < values.length; i++) {
      length += i < widths.length ? Math.max(widths[i], values[i].length()) + 1 : values[i].length();
    }
    StringBuilder line = new StringBuilder(length);
    append(line, values);
    return line.toString();
  }

  private void append(StringBuilder to, String... values) {
    for (int i = 0; i < values.length; i++) {
      to.append(values[i]);
      if (i < widths.length) {
        // the padding and the column's separator in one copy: space by space, a table of 200,000
        // rows was 30 million appends, a fifth of the samples of status's main thread
        to.append(blanks[Math.max(0, widths[i] - values[i].length())]);
      }
    }
    to.append(System.lineSeparator());
  }
}
