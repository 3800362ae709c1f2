package io.healthmesh.edge.follow;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.events.ConfigInForce;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The edges' record of what stays in force, as a running edge writes it and a fresh one reads it. */
class InForceLedgerTest {
  private static final String TOPIC = "config.resource-record-set";
  private static final String KEY = "internal/db.example.internal./A";
  private static final byte[] V1 = {0, 0, 0, 0, 7, 1};
  private final List<Map.Entry<String, ConfigInForce>> written = new ArrayList<>();
  private final InForceLedger running = new InForceLedger((k, v) -> written.add(new java.util.AbstractMap.SimpleEntry<>(k, v)));

  @org.junit.jupiter.api.BeforeEach
  void readTheWholeTopics() {
    running.complete();
  }

  @Test
  void theVersionKeptInForce_isWrittenOnce_whenLaterVersionsAreRejected() {
    running.accepted(TOPIC, KEY, 0, 10);
    assertThat(running.rejected(TOPIC, KEY, 0, 20, List.of("weight 2000 (R-WRR-1)"), V1, 10)).isNull();
    assertThat(running.rejected(TOPIC, KEY, 0, 20, List.of("weight 2000 (R-WRR-1)"), V1, 10)).isNull();
    running.rejected(TOPIC, KEY, 0, 30, List.of("weight 3000 (R-WRR-1)"), V1, 10);

    assertThat(written).extracting(e -> e.getValue().getRejectedOffset()).containsExactly(20L, 30L);
    ConfigInForce last = written.get(1).getValue();
    assertThat(last.getInForceOffset()).isEqualTo(10);
    assertThat(last.getProblems()).containsExactly("weight 3000 (R-WRR-1)");
    assertThat(written.get(1).getKey()).isEqualTo(TOPIC + "|" + KEY);
  }

  @Test
  void aFreshEdgeServesTheKeptVersion_whenCompactionLeftOnlyARejectedOne_inEitherReadingOrder() {
    running.accepted(TOPIC, KEY, 0, 10);
    running.rejected(TOPIC, KEY, 0, 30, List.of("R-WRR-1"), V1, 10);
    ConfigInForce entry = written.get(0).getValue();

    InForceLedger ledgerFirst = new InForceLedger((k, v) -> {});
    assertThat(ledgerFirst.read(TOPIC + "|" + KEY, entry)).isNull();
    InForceLedger.Restore restore = ledgerFirst.rejected(TOPIC, KEY, 0, 30, List.of("R-WRR-1"), null, -1);
    assertThat(restore.value()).isEqualTo(V1);
    assertThat(restore.offset()).isEqualTo(10);

    InForceLedger recordFirst = new InForceLedger((k, v) -> {});
    assertThat(recordFirst.rejected(TOPIC, KEY, 0, 30, List.of("R-WRR-1"), null, -1)).isNull();
    assertThat(recordFirst.read(TOPIC + "|" + KEY, entry).value()).isEqualTo(V1);
  }

  @Test
  void nothingIsRestored_whenTheRejectedVersionIsNotOneTheEntryCovers() {
    running.rejected(TOPIC, KEY, 0, 30, List.of("R-WRR-1"), V1, 10);
    ConfigInForce entry = written.get(0).getValue();
    InForceLedger fresh = new InForceLedger((k, v) -> {});
    fresh.read(TOPIC + "|" + KEY, entry);

    assertThat(fresh.rejected(TOPIC, KEY, 0, 31, List.of("R-WRR-1"), null, -1)).as("newer than the entry").isNull();
    assertThat(fresh.rejected(TOPIC, KEY, 1, 30, List.of("R-WRR-1"), null, -1)).as("another partition").isNull();
  }

  @Test
  void saysNothingIsInForce_whenNoVersionOfTheRecordWasEverValid() {
    assertThat(running.rejected(TOPIC, KEY, 0, 5, List.of("R-WRR-1"), null, -1)).isNull();

    assertThat(written).singleElement().satisfies(e -> {
      assertThat(e.getValue().getInForce()).isNull();
      assertThat(e.getValue().getInForceOffset()).isEqualTo(-1);
      assertThat(e.getValue().getRejectedOffset()).isEqualTo(5);
    });
    InForceLedger fresh = new InForceLedger((k, v) -> {});
    fresh.read(TOPIC + "|" + KEY, written.get(0).getValue());
    assertThat(fresh.rejected(TOPIC, KEY, 0, 5, List.of("R-WRR-1"), null, -1)).as("nothing to restore").isNull();
  }

  @Test
  void aFreshEdgeWritesNothing_thatTheTopicAlreadyKnowsBetter_untilItHasReadItAll() {
    running.rejected(TOPIC, KEY, 0, 30, List.of("R-WRR-1"), V1, 10);
    ConfigInForce kept = written.get(0).getValue();
    List<ConfigInForce> freshWrites = new ArrayList<>();
    InForceLedger fresh = new InForceLedger((k, v) -> freshWrites.add(v));

    // Compaction left only the rejected record, read before the ledger's entry.
    assertThat(fresh.rejected(TOPIC, KEY, 0, 30, List.of("R-WRR-1"), null, -1)).isNull();
    assertThat(fresh.read(TOPIC + "|" + KEY, kept).value()).isEqualTo(V1);
    fresh.complete();
    assertThat(freshWrites).as("its own 'nothing in force' would have replaced the kept version").isEmpty();
  }

  @Test
  void theEntryIsDeleted_whenALaterVersionIsTaken_butNotWhenTheKeptOneIsReadAgain() {
    running.rejected(TOPIC, KEY, 0, 30, List.of("R-WRR-1"), V1, 10);
    running.accepted(TOPIC, KEY, 0, 10);
    assertThat(written).hasSize(1);

    running.accepted(TOPIC, KEY, 0, 40);
    assertThat(written).hasSize(2);
    assertThat(written.get(1).getValue()).as("a tombstone").isNull();
  }
}
