package io.healthmesh.cli;

import io.healthmesh.streams.query.StatusClient;
import io.healthmesh.streams.query.StatusQuery;
import io.healthmesh.streams.query.StatusRow;
import io.healthmesh.streams.query.StatusTable;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * {@code status} asked of the topology's stores (R-OP-6) instead of read from {@code health-state}:
 * a narrow question costs a request, not a read of the topic.
 */
final class TopologyStatus {
  /** Where {@code healthctl demo} serves it: the topology's metrics port. */
  static final String DEMO_URL = "http://127.0.0.1:9401";
  /** A topology that is there accepts at once; one that is not must not delay the fallback. */
  private static final Duration CONNECT = Duration.ofMillis(500);
  private static final Duration READ = Duration.ofSeconds(60);

  private TopologyStatus() {}

  /**
   * Gives {@code rows} each row as it arrives, while the topology still reads its stores; they
   * are the whole answer only if no {@link StatusClient.Unanswered} follows.
   *
   * @return how many instances' stores answered
   */
  static int ask(String baseUrl, StatusQuery query, Consumer<StatusRow> rows) throws StatusClient.Unanswered {
    return StatusClient.ask(baseUrl, query, false, CONNECT, READ, rows);
  }

  /** As {@link #ask}, each row as the table shows it, worded by the topology: a line to split, not JSON to parse. */
  static int table(String baseUrl, StatusQuery query, Consumer<StatusTable.Row> rows) throws StatusClient.Unanswered {
    return StatusClient.table(baseUrl, query, CONNECT, READ, rows);
  }
}
