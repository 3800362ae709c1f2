package io.healthmesh.edge.state;

import io.healthmesh.edge.routing.Address;
import io.healthmesh.edge.routing.Bucket;
import io.healthmesh.events.HealthStatus;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * UNKNOWN target addresses that their record set counts as HEALTHY (on a last known state) or as
 * UNHEALTHY rather than as the default does (R-OP-2), over every record set served: a gauge read
 * by other threads while the follower updates it one record set at a time.
 */
final class UnknownCounts {
  /** Per record set, its addresses counted HEALTHY and counted UNHEALTHY; only non-zero ones. */
  private final Map<String, int[]> byRecordSet = new HashMap<>();
  private final AtomicLongArray totals = new AtomicLongArray(2);

  long total(HealthStatus as) {
    return totals.get(as == HealthStatus.HEALTHY ? 0 : 1);
  }

  /** @param entry what the record set serves now, null when it serves nothing */
  void count(String key, RecordSetEntry entry) {
    int[] counts = new int[2];
    if (entry != null) {
      for (Bucket b : entry.plan().buckets()) {
        for (Address a : b.addresses()) {
          if (a.checked() && a.status() == HealthStatus.UNKNOWN && a.counted() != HealthStatus.UNKNOWN) {
            counts[a.counted() == HealthStatus.HEALTHY ? 0 : 1]++;
          }
        }
      }
    }
    int[] before = counts[0] + counts[1] == 0 ? byRecordSet.remove(key) : byRecordSet.put(key, counts);
    for (int i = 0; i < 2; i++) {
      int delta = counts[i] - (before == null ? 0 : before[i]);
      if (delta != 0) {
        totals.addAndGet(i, delta);
      }
    }
  }
}
