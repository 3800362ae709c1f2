package io.healthmesh.streams.query;

import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProberView;
import io.healthmesh.schemas.IsoInstants;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

/**
 * The status table's cells, worded once: by {@code healthctl status} for rows it read itself, and
 * by the topology when asked for the table ({@code Accept: text/tab-separated-values}), the way
 * Kubernetes' API server prints tables for kubectl. A table's row is a line of cells and costs its
 * reader a split; the JSON row costs a parse of every field and then this wording, which for
 * 200,000 rows was most of a whole {@code status} (docs/benchmarks.md).
 *
 * <p>The answer: a line naming the columns, a line per row, then {@code #end<TAB>instances} when
 * it is whole or {@code #error<TAB>why} when it could not be finished. Without either it was cut
 * off. A cell's tab, line end or backslash is escaped ({@code \t}, {@code \n}, {@code \r},
 * {@code \\}).
 */
public final class StatusTable {
  public static final String MEDIA_TYPE = "text/tab-separated-values";
  public static final List<String> COLUMNS = List.of("KIND", "NAME", "STATE", "SINCE", "UP/DOWN/UNKNOWN", "THRESHOLDS",
      "REGION", "PROBERS");
  private static final String HEADER = String.join("\t", COLUMNS);
  private static final String END = "#end\t";
  private static final String ERROR = "#error\t";

  /** One row of the table: its cells, and what it is sorted and counted by. */
  public record Row(EntityKind kind, String name, HealthStatus status, String[] cells) {}

  private StatusTable() {}

  public static Row row(StatusRow r) {
    HealthState s = r.state();
    String[] cells = {r.key().getKind().name(), r.key().getName(),
        s.getStatus() + (s.getLastKnownStatus() == null ? "" : " (was " + s.getLastKnownStatus() + ")"),
        IsoInstants.format(s.getSince()), s.getHealthyCount() + "/" + s.getUnhealthyCount() + "/" + s.getUnknownCount(),
        r.thresholds() == null ? "-" : r.thresholds(), s.getRegion().isEmpty() ? "-" : s.getRegion(), probers(s)};
    return new Row(r.key().getKind(), r.key().getName(), s.getStatus(), cells);
  }

  /** R-PQ-4: "asia UNHEALTHY, eu-west HEALTHY" for an endpoint decided across probers, as they were when decided. */
  private static String probers(HealthState s) {
    if (s.getProbers().isEmpty()) {
      return "-";
    }
    StringBuilder text = new StringBuilder();
    for (ProberView v : s.getProbers()) {
      text.append(text.length() == 0 ? "" : ", ").append(v.getProber()).append(' ').append(v.getStatus());
    }
    return text.toString();
  }

  /**
   * An answer as the table's lines, each made in one builder and copied out through one array: with
   * a string per line instead, a whole answer of 200,014 rows allocated 500 MB instead of 431 MB.
   */
  static final class Answer implements StatusAnswer {
    private final Writer out;
    private final int instances;
    private final StringBuilder line = new StringBuilder(256);
    private char[] chars = new char[256];

    Answer(OutputStream out, int instances) throws IOException {
      this.out = new OutputStreamWriter(out, StandardCharsets.UTF_8);
      this.instances = instances;
      write(line.append(HEADER));
    }

    @Override
    public void row(StatusRow r) throws IOException {
      String[] cells = StatusTable.row(r).cells();
      for (int i = 0; i < cells.length; i++) {
        escape(i == 0 ? line : line.append('\t'), cells[i]);
      }
      write(line);
    }

    @Override
    public void whole() throws IOException {
      write(line.append(END).append(instances));
    }

    @Override
    public void unfinished(String why) throws IOException {
      line.setLength(0); // whatever a failing row left: the reason must start its own line
      write(escape(line.append(ERROR), why));
    }

    @Override
    public void close() throws IOException {
      out.flush();
    }

    /** Writes the line made in {@code text} and empties it for the next. */
    private void write(StringBuilder text) throws IOException {
      text.append('\n');
      if (chars.length < text.length()) {
        chars = new char[2 * text.length()];
      }
      text.getChars(0, text.length(), chars, 0);
      out.write(chars, 0, text.length());
      text.setLength(0);
    }

    /** A cell as it is, unless it holds what must be escaped: nearly none does, and a scan costs less than a copy by character. */
    private static StringBuilder escape(StringBuilder to, String cell) {
      for (int i = 0; i < cell.length(); i++) {
        char c = cell.charAt(i);
        if (c == '\t' || c == '\n' || c == '\r' || c == '\\') {
          return escape(to.append(cell, 0, i), cell, i);
        }
      }
      return to.append(cell);
    }

    private static StringBuilder escape(StringBuilder to, String cell, int from) {
      for (int i = from; i < cell.length(); i++) {
        char c = cell.charAt(i);
        switch (c) {
          case '\t' -> to.append("\\t");
          case '\n' -> to.append("\\n");
          case '\r' -> to.append("\\r");
          case '\\' -> to.append("\\\\");
          default -> to.append(c);
        }
      }
      return to;
    }
  }

  /**
   * Gives {@code rows} each row of an answer as it arrives: they are the whole answer only if this
   * returns.
   *
   * @return how many instances' stores the rows came from
   * @throws StatusClient.Refused when the answer says it could not be finished
   * @throws IOException when it is not such an answer, or was cut off
   */
  static int read(InputStream in, Consumer<Row> rows) throws IOException, StatusClient.Refused {
    Lines lines = new Lines(in);
    String header = lines.next();
    if (!HEADER.equals(header)) {
      throw new IOException("not a status table: its columns are " + header);
    }
    for (String line = lines.next(); line != null; line = lines.next()) {
      if (line.startsWith(END)) {
        return Integer.parseInt(line.substring(END.length()));
      }
      if (line.startsWith(ERROR)) {
        throw new StatusClient.Refused(unescape(line.substring(ERROR.length())));
      }
      String[] cells = split(line);
      rows.accept(new Row(EntityKind.valueOf(cells[0]), cells[1], status(cells[2]), cells));
    }
    throw new IOException("the status table ended before its last line");
  }

  private static String[] split(String line) throws IOException {
    String[] cells = new String[COLUMNS.size()];
    boolean escaped = line.indexOf('\\') >= 0;
    int from = 0;
    for (int i = 0; i < cells.length; i++) {
      int tab = line.indexOf('\t', from);
      boolean last = i == cells.length - 1;
      if (last ? tab >= 0 : tab < 0) {
        throw new IOException("a status row without " + cells.length + " cells: " + line);
      }
      int end = last ? line.length() : tab;
      cells[i] = escaped ? unescape(line.substring(from, end)) : line.substring(from, end);
      from = end + 1;
    }
    return cells;
  }

  /** The state cell starts with the status: "UNKNOWN (was HEALTHY)". */
  private static HealthStatus status(String cell) {
    int space = cell.indexOf(' ');
    return HealthStatus.valueOf(space < 0 ? cell : cell.substring(0, space));
  }

  private static String unescape(String cell) {
    StringBuilder text = new StringBuilder(cell.length());
    for (int i = 0; i < cell.length(); i++) {
      char c = cell.charAt(i);
      if (c != '\\' || i == cell.length() - 1) {
        text.append(c);
        continue;
      }
      char next = cell.charAt(++i);
      text.append(next == 't' ? '\t' : next == 'n' ? '\n' : next == 'r' ? '\r' : next);
    }
    return text.toString();
  }

  /**
   * An answer's lines, from its UTF-8 bytes; null after the last. Not JDK's {@code BufferedReader},
   * which was as fast (measured cold and warm) but gives a last line without its end as a line: the
   * part of a row, or of {@code #end}'s count, that a cut-off answer ends with.
   */
  private static final class Lines {
    private final InputStream in;
    private byte[] buffer = new byte[1 << 16];
    private int start;
    private int end;

    Lines(InputStream in) {
      this.in = in;
    }

    String next() throws IOException {
      int scanned = start;
      while (true) {
        for (int i = scanned; i < end; i++) {
          if (buffer[i] == '\n') {
            String line = new String(buffer, start, i - start, StandardCharsets.UTF_8);
            start = i + 1;
            return line;
          }
        }
        scanned = end - start;
        if (start > 0) {
          System.arraycopy(buffer, start, buffer, 0, end - start);
          end -= start;
          start = 0;
        } else if (end == buffer.length) {
          buffer = java.util.Arrays.copyOf(buffer, 2 * buffer.length);
        }
        int read = in.read(buffer, end, buffer.length - end);
        if (read < 0) {
          return null; // a last line without its end is no line: the answer was cut off
        }
        end += read;
      }
    }
  }
}
