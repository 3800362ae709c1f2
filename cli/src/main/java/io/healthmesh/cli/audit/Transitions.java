package io.healthmesh.cli.audit;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every state transition as read from {@code health-transitions} (R-AUD-1), by entity and in
 * event-time order; the state of an entity at T is the new state of its last transition at or
 * before T.
 */
public final class Transitions {
  private static final Comparator<HealthTransition> ORDER =
      Comparator.comparing(HealthTransition::getEventTime).thenComparingLong(HealthTransition::getVersion);
  private final Map<String, List<HealthTransition>> byEntity = new TreeMap<>();

  /** An entity's state at an instant, and the transition that set it. */
  public record State(EntityKey entity, HealthStatus status, HealthTransition setBy) {}

  public void add(HealthTransition t) {
    byEntity.computeIfAbsent(key(t.getEntity().getKind(), t.getEntity().getName()), k -> new ArrayList<>()).add(t);
  }

  /** Sorts what was added; call once after the last {@link #add}. */
  public Transitions done() {
    byEntity.values().forEach(list -> list.sort(ORDER));
    return this;
  }

  public static String key(EntityKind kind, String name) {
    return kind + "/" + name;
  }

  /** Transitions of one entity with event time in [from, to]; null bounds are open. */
  public List<HealthTransition> timeline(EntityKind kind, String name, Instant from, Instant to) {
    return byEntity.getOrDefault(key(kind, name), List.of()).stream()
        .filter(t -> (from == null || !t.getEventTime().isBefore(from)) && (to == null || !t.getEventTime().isAfter(to)))
        .toList();
  }

  /** UNKNOWN (with no transition) when the entity had none at or before {@code at}. */
  public State at(EntityKind kind, String name, Instant at) {
    HealthTransition last = null;
    for (HealthTransition t : byEntity.getOrDefault(key(kind, name), List.of())) {
      if (t.getEventTime().isAfter(at)) {
        break;
      }
      last = t;
    }
    return new State(new EntityKey(kind, name), last == null ? HealthStatus.UNKNOWN : last.getNewStatus(), last);
  }

  /** Every entity that had a transition at or before {@code at}, with its state then. */
  public Map<String, State> all(Instant at) {
    Map<String, State> states = new LinkedHashMap<>();
    byEntity.forEach((key, list) -> {
      HealthTransition first = list.get(0);
      if (!first.getEventTime().isAfter(at)) {
        states.put(key, at(first.getEntity().getKind(), first.getEntity().getName(), at));
      }
    });
    return states;
  }

  public int size() {
    return byEntity.values().stream().mapToInt(List::size).sum();
  }

  /** Every transition, in event-time order. */
  public List<HealthTransition> all() {
    List<HealthTransition> all = new ArrayList<>();
    byEntity.values().forEach(all::addAll);
    all.sort(ORDER);
    return all;
  }
}
