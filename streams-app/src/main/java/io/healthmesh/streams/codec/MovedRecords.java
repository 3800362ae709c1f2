package io.healthmesh.streams.codec;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Headers of a record that the ingest step moved to its key's partition, or could not: how the
 * per-service stage learns where the record was first read, or why its key was unreadable.
 */
public final class MovedRecords {
  /** {@code topic:partition:offset} where a moved record was read first. */
  public static final String ORIGIN = "healthmesh.origin";
  /** Why a record's key could not be read; the per-service stage dead-letters it. */
  public static final String KEY_PROBLEM = "healthmesh.key.problem";

  private MovedRecords() {}

  public static void markMoved(Headers headers, String topic, int partition, long offset) {
    headers.add(ORIGIN, (topic + ":" + partition + ":" + offset).getBytes(StandardCharsets.UTF_8));
  }

  /** Where a moved record was read first; null when it carries no readable origin. */
  public static Origin originOf(Headers headers, long timestamp) {
    Header first = headers.lastHeader(ORIGIN);
    String[] at = first == null ? new String[0] : new String(first.value(), StandardCharsets.UTF_8).split(":");
    return at.length == 3 ? new Origin(at[0], Integer.parseInt(at[1]), Long.parseLong(at[2]), timestamp) : null;
  }

  public static void markKeyProblem(Headers headers, String problem) {
    headers.add(KEY_PROBLEM, problem.getBytes(StandardCharsets.UTF_8));
  }

  /** Why the record's key could not be read; null when it could. */
  public static String keyProblemOf(Headers headers) {
    Header problem = headers.lastHeader(KEY_PROBLEM);
    return problem == null ? null : new String(problem.value(), StandardCharsets.UTF_8);
  }
}
