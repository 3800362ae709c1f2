package io.healthmesh.edge.state;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/** When record sets whose plans count a last known state stop doing so (R-OP-2), earliest first. */
final class Expiries {
  private record Expiry(long at, String key) {}

  private final PriorityQueue<Expiry> queue = new PriorityQueue<>(Comparator.comparingLong(Expiry::at));

  void add(long at, String key) {
    queue.add(new Expiry(at, key));
  }

  /** Hands every key due by {@code now} to {@code due}, and forgets it. */
  void takeDue(long now, Consumer<String> due) {
    while (!queue.isEmpty() && queue.peek().at() <= now) {
      due.accept(queue.poll().key());
    }
  }
}
