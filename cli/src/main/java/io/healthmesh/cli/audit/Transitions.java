package io.healthmesh.cli.audit;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.HealthTransition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every state transition as read from {@code health-transitions} (R-AUD-1), by entity and in
 * event-time order; the state of an entity at T is the new state of its last transition at or
 * before T. Entities {@code health-state} knows that never had a transition (UNKNOWN since they
 * were created, such as a composite whose new source has no results yet) are known too, from the
 * time of their first record there until a tombstone removes them.
 */
public final class Transitions {
  private static final Comparator<HealthTransition> ORDER =
      Comparator.comparing(HealthTransition::getEventTime).thenComparingLong(HealthTransition::getVersion);
  private final Map<String, List<HealthTransition>> byEntity = new TreeMap<>();

  private final Map<String, Known> known = new TreeMap<>();

  /**
   * An entity's state at an instant, and the transition that set it; {@code setBy} is null when
   * it had none yet, and {@code knownSince} then says since when {@code health-state} knew it.
   */
  public record State(EntityKey entity, HealthStatus status, HealthTransition setBy, Instant knownSince) {
    /** When the entity took this state: its last transition, or when it became known. */
    public Instant since() {
      return setBy != null ? setBy.getEventTime() : knownSince;
    }

    public long version() {
      return setBy == null ? 0 : setBy.getVersion();
    }
  }

  /** When health-state first had the entity, and when a tombstone last removed it (null: it exists). */
  private record Known(EntityKey entity, Instant since, Instant removed) {}

  /** A record of {@code health-state}, {@code value} null for a tombstone, with its record time. */
  public void addState(EntityKey entity, boolean tombstone, Instant time) {
    String key = key(entity.getKind(), entity.getName());
    Known was = known.get(key);
    if (tombstone) {
      if (was != null) {
        known.put(key, new Known(was.entity(), was.since(), time));
      }
    } else if (was == null || was.removed() != null && !time.isBefore(was.removed())) {
      known.put(key, new Known(entity, time, null));
    }
  }

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
    Known k = known.get(key(kind, name));
    Instant knownSince = k != null && !k.since().isAfter(at) && (k.removed() == null || k.removed().isAfter(at))
        ? k.since() : null;
    return new State(new EntityKey(kind, name), last == null ? HealthStatus.UNKNOWN : last.getNewStatus(), last,
        knownSince);
  }

  /**
   * Every entity that had a transition at or before {@code at}, or that health-state knew then,
   * with its state then.
   */
  public Map<String, State> all(Instant at) {
    Map<String, State> states = new TreeMap<>();
    byEntity.forEach((key, list) -> {
      HealthTransition first = list.get(0);
      if (!first.getEventTime().isAfter(at)) {
        states.put(key, at(first.getEntity().getKind(), first.getEntity().getName(), at));
      }
    });
    known.forEach((key, k) -> {
      if (!states.containsKey(key)) {
        State state = at(k.entity().getKind(), k.entity().getName(), at);
        if (state.knownSince() != null) {
          states.put(key, state);
        }
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
