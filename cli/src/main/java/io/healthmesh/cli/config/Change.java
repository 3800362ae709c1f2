package io.healthmesh.cli.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/** What applying a resource does to the stored configuration. */
public record Change(Resource resource, Action action) {

  public enum Action {
    CREATED, CONFIGURED, UNCHANGED, DELETED,
    /** Equal to the version in force, written again because the latest record could not be read. */
    REPAIRED;

    public String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Compares each resource with what is stored; a resource with a null value is a deletion. */
  public static List<Change> plan(Catalog current, List<Resource> resources) {
    return resources.stream().map(r -> {
      Object stored = current.get(r.kind(), r.key());
      Action action = r.value() == null ? Action.DELETED
          : stored == null ? Action.CREATED
          : !Objects.equals(stored, r.value()) ? Action.CONFIGURED
          : current.isDamaged(r.kind(), r.key()) ? Action.REPAIRED : Action.UNCHANGED;
      return new Change(r, action);
    }).toList();
  }

  @Override
  public String toString() {
    return resource.ref() + " " + action.word();
  }
}
