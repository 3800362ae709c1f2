package io.healthmesh.streams.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProberView;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.junit.jupiter.api.Test;

/** A status answer as written row by row (R-OP-6): whole, or ended so that no reader takes it for whole. */
class StatusAnswerTest {
  private static final List<StatusRow> ROWS = List.of(row("orders/vm-1", HealthStatus.HEALTHY),
      row("orders/vm-2", HealthStatus.UNHEALTHY));

  @Test
  void readsBackEveryRowAndTheInstances_whenTheAnswerIsWhole_R_OP_6() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(answer(StatusAnswer.json(out, 2), rows -> ROWS.forEach(rows))).isTrue();

    List<StatusRow> read = new ArrayList<>();
    assertThat(StatusClient.read(parser(out), read::add)).isEqualTo(2);
    assertThat(read).isEqualTo(ROWS);
    assertThat(new ObjectMapper().readTree(out.toByteArray()).get("rows")).hasSize(2);
  }

  @Test
  void endsWithTheReasonAndUnclosed_whenAStoreMovesAfterTheFirstRows_R_OP_6() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean whole = answer(StatusAnswer.json(out, 1), rows -> {
      ROWS.forEach(rows);
      throw new InvalidStateStoreException("the store health-published moved");
    });

    assertThat(whole).isFalse();
    assertThat(out.toString(StandardCharsets.UTF_8)).endsWith(
        "],\"error\":\"a rebalance is moving the stores: the store health-published moved\"");
    assertThatThrownBy(() -> StatusClient.read(parser(out), r -> { }))
        .isInstanceOf(StatusClient.Refused.class).hasMessageContaining("health-published moved");
    // a reader that knows nothing of "error" still cannot take the rows for the whole answer
    assertThatThrownBy(() -> new ObjectMapper().readTree(out.toByteArray())).isInstanceOf(IOException.class);
  }

  @Test
  void endsWithTheReason_whenAnotherInstanceDoesNotAnswer_R_OP_6() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean whole = answer(StatusAnswer.json(out, 2), rows -> {
      rows.accept(ROWS.get(0));
      throw new StatusService.Unanswerable("instance b:9401 did not answer");
    });

    assertThat(whole).isFalse();
    assertThatThrownBy(() -> StatusClient.read(parser(out), r -> { })).hasMessage("instance b:9401 did not answer");
  }

  @Test
  void givesEveryRowAsTheTableWordsIt_whenTheTableIsAskedFor_R_OP_6() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(answer(new StatusTable.Answer(out, 2), rows -> ROWS.forEach(rows))).isTrue();

    List<StatusTable.Row> read = new ArrayList<>();
    assertThat(StatusTable.read(new ByteArrayInputStream(out.toByteArray()), read::add)).isEqualTo(2);
    assertThat(read).extracting(StatusTable.Row::name).containsExactly("orders/vm-1", "orders/vm-2");
    assertThat(read).extracting(StatusTable.Row::status).containsExactly(HealthStatus.HEALTHY, HealthStatus.UNHEALTHY);
    assertThat(read.get(1).cells()).containsExactly("ENDPOINT", "orders/vm-2", "UNHEALTHY",
        "2026-12-03T17:40:00.125Z", "0/0/0", "1 up/1 down", "us-east1", "-");
    // the same cells as a row read from JSON (an older topology's answer) is worded with
    assertThat(read.get(1).cells()).containsExactly(StatusTable.row(ROWS.get(1)).cells());
  }

  @Test
  void keepsTabsLineEndsAndBackslashesInsideTheirCell_whenANameHoldsThem_R_OP_6() throws Exception {
    StatusRow odd = new StatusRow(new EntityKey(EntityKind.EXTERNAL_ENDPOINT, "a\tb\\c\nd\re\\"), new HealthState(
        HealthStatus.UNKNOWN, Instant.EPOCH, "", 0, 0, 0, 1L, null, HealthStatus.HEALTHY,
        List.of(new ProberView("eu\twest", HealthStatus.HEALTHY, Instant.EPOCH))), null);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    answer(new StatusTable.Answer(out, 1), rows -> rows.accept(odd));

    assertThat(out.toString(StandardCharsets.UTF_8).lines()).hasSize(3); // columns, the row, its end
    List<StatusTable.Row> read = new ArrayList<>();
    StatusTable.read(new ByteArrayInputStream(out.toByteArray()), read::add);
    assertThat(read).singleElement().satisfies(r -> {
      assertThat(r.name()).isEqualTo("a\tb\\c\nd\re\\");
      assertThat(r.status()).isEqualTo(HealthStatus.UNKNOWN);
      assertThat(r.cells()).containsExactly(StatusTable.row(odd).cells());
      assertThat(r.cells()[2]).isEqualTo("UNKNOWN (was HEALTHY)");
      assertThat(r.cells()[7]).isEqualTo("eu\twest HEALTHY");
    });
  }

  @Test
  void endsWithTheReason_whenATableCannotBeFinished_R_OP_6() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean whole = answer(new StatusTable.Answer(out, 2), rows -> {
      rows.accept(ROWS.get(0));
      throw new StatusService.Unanswerable("instance b:9401 did not answer");
    });

    assertThat(whole).isFalse();
    List<StatusTable.Row> read = new ArrayList<>();
    assertThatThrownBy(() -> StatusTable.read(new ByteArrayInputStream(out.toByteArray()), read::add))
        .isInstanceOf(StatusClient.Refused.class).hasMessage("instance b:9401 did not answer");
  }

  @Test
  void isNotTakenForWhole_whenATableIsCutOffBeforeItsLastLine_R_OP_6() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    answer(new StatusTable.Answer(out, 1), rows -> ROWS.forEach(rows));
    String text = out.toString(StandardCharsets.UTF_8);
    byte[] cut = text.substring(0, text.lastIndexOf("#end")).getBytes(StandardCharsets.UTF_8);
    byte[] midRow = text.substring(0, text.lastIndexOf("#end") - 5).getBytes(StandardCharsets.UTF_8);

    for (byte[] part : List.of(cut, midRow)) {
      assertThatThrownBy(() -> StatusTable.read(new ByteArrayInputStream(part), r -> { }))
          .isInstanceOf(IOException.class).hasMessageContaining("ended before its last line");
    }
  }

  /** An answer written whole and closed, as the service writes it. */
  private static boolean answer(StatusAnswer form, StatusService.Rows rows) throws IOException {
    try (form) {
      return StatusService.answer(form, "", rows);
    }
  }

  private static JsonParser parser(ByteArrayOutputStream out) throws IOException {
    return new JsonFactory().createParser(out.toByteArray());
  }

  private static StatusRow row(String name, HealthStatus status) {
    return new StatusRow(new EntityKey(EntityKind.ENDPOINT, name), new HealthState(status,
        Instant.parse("2026-12-03T17:40:00.125Z"), "us-east1", 0, 0, 0, 3L, null, null, List.of()), "1 up/1 down");
  }
}
