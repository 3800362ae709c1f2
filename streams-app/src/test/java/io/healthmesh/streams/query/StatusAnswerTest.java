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
    assertThat(StatusService.answer(out, 2, "", rows -> ROWS.forEach(rows))).isTrue();

    List<StatusRow> read = new ArrayList<>();
    assertThat(StatusClient.read(parser(out), read::add)).isEqualTo(2);
    assertThat(read).isEqualTo(ROWS);
    assertThat(new ObjectMapper().readTree(out.toByteArray()).get("rows")).hasSize(2);
  }

  @Test
  void endsWithTheReasonAndUnclosed_whenAStoreMovesAfterTheFirstRows_R_OP_6() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean whole = StatusService.answer(out, 1, "", rows -> {
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
    boolean whole = StatusService.answer(out, 2, "", rows -> {
      rows.accept(ROWS.get(0));
      throw new StatusService.Unanswerable("instance b:9401 did not answer");
    });

    assertThat(whole).isFalse();
    assertThatThrownBy(() -> StatusClient.read(parser(out), r -> { })).hasMessage("instance b:9401 did not answer");
  }

  private static JsonParser parser(ByteArrayOutputStream out) throws IOException {
    return new JsonFactory().createParser(out.toByteArray());
  }

  private static StatusRow row(String name, HealthStatus status) {
    return new StatusRow(new EntityKey(EntityKind.ENDPOINT, name), new HealthState(status,
        Instant.parse("2026-12-03T17:40:00.125Z"), "us-east1", 0, 0, 0, 3L, null, null, List.of()), "1 up/1 down");
  }
}
