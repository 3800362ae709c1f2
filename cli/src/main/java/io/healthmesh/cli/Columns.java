package io.healthmesh.cli;

/**
 * A table as text, each column padded to its width like {@code %-Ns} (a longer value pushes the
 * rest of its row right), the last column unpadded: built in one buffer and written at once
 * ({@link #row}), or made row by row ({@link #line}) by a caller that holds its rows already made.
 */
final class Columns {
  private final int[] widths;
  private final StringBuilder text = new StringBuilder();

  Columns(int... widths) {
    this.widths = widths.clone();
  }

  /** One row: a value for each width, then the last column. */
  void row(String... values) {
    append(text, values);
  }

  /**
   * The text {@link #row} would add for these values, its line end included, without adding it:
   * rows can be made ready on other threads, or as they arrive, and sorted before the table.
   */
  String line(String... values) {
    StringBuilder line = new StringBuilder(128);
    append(line, values);
    return line.toString();
  }

  private void append(StringBuilder to, String... values) {
    for (int i = 0; i < values.length; i++) {
      to.append(values[i]);
      if (i < widths.length) {
        for (int pad = widths[i] - values[i].length(); pad > 0; pad--) {
          to.append(' ');
        }
        to.append(' ');
      }
    }
    to.append(System.lineSeparator());
  }

  @Override
  public String toString() {
    return text.toString();
  }
}
