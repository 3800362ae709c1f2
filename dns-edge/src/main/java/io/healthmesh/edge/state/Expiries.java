package io.healthmesh.edge.state;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/** When record sets whose plans count a last known state stop doing so (R-OP-2), earliest first. */
final class Expiries {
  private record Expiry(long at, String key) {}

  private final PriorityQueue<Expiry> queue = new PriorityQueue<>(Comparator.comparingLong(Expiry::at));

  void add(long at, String key) {
    queue.add(new Expiry(at, key));
  }

  /** The keys due by {@code now}, forgotten here; most calls find none and allocate nothing. */
  List<String> takeDue(long now) {
    List<String> due = List.of();
    while (!queue.isEmpty() && queue.peek().at() <= now) {
      if (due.isEmpty()) {
        due = new ArrayList<>();
      }
      due.add(queue.poll().key());
    }
    return due;
  }
}
