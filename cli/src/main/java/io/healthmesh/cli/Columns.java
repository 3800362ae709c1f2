package io.healthmesh.cli;

/**
 * A table as text, each column padded to its width like {@code %-Ns} (a longer value pushes the
 * rest of its row right), the last column unpadded; built in one buffer, written at once.
 */
final class Columns {
  private final int[] widths;
  private final StringBuilder text = new StringBuilder();

  Columns(int... widths) {
    this.widths = widths.clone();
  }

  /** One row: a value for each width, then the last column. */
  void row(String... values) {
    for (int i = 0; i < values.length; i++) {
      text.append(values[i]);
      if (i < widths.length) {
        for (int pad = widths[i] - values[i].length(); pad > 0; pad--) {
          text.append(' ');
        }
        text.append(' ');
      }
    }
    text.append(System.lineSeparator());
  }

  @Override
  public String toString() {
    return text.toString();
  }
}
