package io.healthmesh.streams.aggregate;

import java.util.LinkedHashSet;
import java.util.Set;

/** What one input touches, filled in as the dependencies are followed; insertion-ordered for replays. */
final class Affected {
  final Set<String> services = new LinkedHashSet<>();
  final Set<String> policies = new LinkedHashSet<>();
  final Set<String> sources = new LinkedHashSet<>();
  final Set<String> composites = new LinkedHashSet<>();
  final Set<String> forwardingRules = new LinkedHashSet<>();
  final Set<String> destinations = new LinkedHashSet<>();
  final Set<String> consumers = new LinkedHashSet<>();
}
