package io.healthmesh.streams.query;

import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A {@code status} question: which entities, by kind, name and state. The same object asks
 * (healthctl, as a URL's query) and answers (the topology, against its stores). Its name pattern
 * is compiled once: every row of an answer is tested against it.
 */
public final class StatusQuery {
  private final Set<EntityKind> kinds;
  private final String name;
  private final Set<HealthStatus> states;
  private final Pattern pattern;

  /**
   * @param kinds empty for every kind
   * @param name null for every name; {@code *} matches any text
   * @param states empty for every state
   */
  public StatusQuery(Set<EntityKind> kinds, String name, Set<HealthStatus> states) {
    this.kinds = kinds.isEmpty() ? EnumSet.noneOf(EntityKind.class) : EnumSet.copyOf(kinds);
    this.name = name;
    this.states = states.isEmpty() ? EnumSet.noneOf(HealthStatus.class) : EnumSet.copyOf(states);
    this.pattern = name == null ? null : Pattern.compile(Pattern.quote(name).replace("*", "\\E.*\\Q"));
  }

  /** The kinds to look at: those asked, or every kind entities are published as. */
  public Set<EntityKind> kindsAsked() {
    if (!kinds.isEmpty()) {
      return kinds;
    }
    Set<EntityKind> all = EnumSet.allOf(EntityKind.class);
    all.remove(EntityKind.OTHER);
    return all;
  }

  /** The name's text before its first {@code *}: every match starts with it. */
  public String namePrefix() {
    if (name == null) {
      return "";
    }
    int star = name.indexOf('*');
    return star < 0 ? name : name.substring(0, star);
  }

  public boolean matchesName(String entityName) {
    return pattern == null || pattern.matcher(entityName).matches();
  }

  public boolean matchesState(HealthStatus status) {
    return states.isEmpty() || states.contains(status);
  }

  public boolean matches(EntityKey key, HealthStatus status) {
    return (kinds.isEmpty() || kinds.contains(key.getKind())) && matchesState(status) && matchesName(key.getName());
  }

  /** {@code kind=A,B&name=x&state=HEALTHY}, with only what narrows the question. */
  public String toQueryString() {
    List<String> parts = new ArrayList<>();
    if (!kinds.isEmpty()) {
      parts.add("kind=" + kinds.stream().map(Enum::name).collect(Collectors.joining(",")));
    }
    if (name != null) {
      parts.add("name=" + URLEncoder.encode(name, StandardCharsets.UTF_8));
    }
    if (!states.isEmpty()) {
      parts.add("state=" + states.stream().map(Enum::name).collect(Collectors.joining(",")));
    }
    return String.join("&", parts);
  }

  /**
   * The question a URL's raw query asks; unknown parameters are ignored, so a newer healthctl can
   * ask an older topology.
   *
   * @throws IllegalArgumentException naming a kind or state that does not exist
   */
  public static StatusQuery parse(String rawQuery) {
    Set<EntityKind> kinds = EnumSet.noneOf(EntityKind.class);
    Set<HealthStatus> states = EnumSet.noneOf(HealthStatus.class);
    String name = null;
    for (String pair : rawQuery == null || rawQuery.isEmpty() ? new String[0] : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      switch (key) {
        case "kind" -> each(value, v -> kinds.add(parse(EntityKind.class, "kind", v)));
        case "state" -> each(value, v -> states.add(parse(HealthStatus.class, "state", v)));
        case "name" -> name = value;
        default -> { }
      }
    }
    return new StatusQuery(kinds, name, states);
  }

  private static void each(String values, java.util.function.Consumer<String> add) {
    for (String v : values.split(",")) {
      if (!v.isEmpty()) {
        add.accept(v);
      }
    }
  }

  private static <E extends Enum<E>> E parse(Class<E> type, String what, String value) {
    try {
      return Enum.valueOf(type, value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown " + what + " '" + value + "'; one of "
          + EnumSet.allOf(type).stream().map(Enum::name).collect(Collectors.joining(", ")), e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StatusQuery q && kinds.equals(q.kinds) && Objects.equals(name, q.name) && states.equals(q.states);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kinds, name, states);
  }

  @Override
  public String toString() {
    return toQueryString();
  }
}
