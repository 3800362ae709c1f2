package io.healthmesh.streams.codec;

import io.healthmesh.internal.ExternalEndpointRef;
import io.healthmesh.internal.ForwardingRuleRef;

/**
 * The four inputs of the per-service stage, tagged by the topology as it merges them, so the
 * stage dispatches on the type instead of on the topic a record came from. Probe results and
 * backend services stay bytes: they are decoded, and dead-lettered when they cannot be, by the
 * handler that knows their position.
 */
public sealed interface ServiceInput {
  /** @param moved read from the internal topic that moved it to its service's partition */
  record Probe(byte[] value, boolean moved) implements ServiceInput {}

  /** A backend service's configuration; {@code value} null deletes it. */
  record Service(byte[] value, boolean moved) implements ServiceInput {}

  /** A record set starts or stops health checking an external endpoint (keyed by its address). */
  record ExternalRef(ExternalEndpointRef ref) implements ServiceInput {}

  /** A forwarding rule now fronts, or no longer fronts, the service it is keyed by. */
  record RuleRef(ForwardingRuleRef ref) implements ServiceInput {}

  default boolean moved() {
    return this instanceof Probe p && p.moved() || this instanceof Service s && s.moved();
  }

  /** A probe's or a backend service's bytes as read, to move them to another partition; null for the others. */
  static byte[] raw(ServiceInput input) {
    return input instanceof Probe p ? p.value() : input instanceof Service s ? s.value() : null;
  }
}
