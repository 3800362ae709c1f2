package io.healthmesh.cli.audit;

import io.healthmesh.cli.config.ConfigTopics;
import io.healthmesh.cli.kafka.TopicScan;
import io.healthmesh.events.DnsDecision;
import io.healthmesh.events.DnsQueryLog;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthTransition;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads what an audit needs from the topics, and nothing else; close it after. */
public final class AuditData implements AutoCloseable {
  private final TopicScan scan;
  private final SchemaRegistryClient registry;
  private final Map<String, Object> client;

  public AuditData(Map<String, Object> client, SchemaRegistryClient registry, boolean progress) {
    this.client = client;
    this.scan = new TopicScan(client, progress);
    this.registry = registry;
  }

  @Override
  public void close() {
    scan.close();
  }

  public TopicScan scan() {
    return scan;
  }

  public SchemaRegistryClient registry() {
    return registry;
  }

  /**
   * Every transition ever recorded (the state at T needs everything before T), and every entity
   * health-state knows, so that one that never left UNKNOWN is shown too.
   */
  public Transitions transitions() {
    Transitions transitions = new Transitions();
    scan.read(Topics.HEALTH_STATE.name(), Topics.HEALTH_STATE.keySerde(registry).deserializer(),
        Topics.HEALTH_STATE.valueSerde(registry).deserializer(), null, r -> {
          if (r.key() != null) {
            transitions.addState(r.key(), r.value() == null, Instant.ofEpochMilli(r.timestamp()));
          }
        });
    scan.read(Topics.HEALTH_TRANSITIONS.name(), Topics.HEALTH_TRANSITIONS.keySerde(registry).deserializer(),
        Topics.HEALTH_TRANSITIONS.valueSerde(registry).deserializer(), null, r -> {
          if (r.value() != null) {
            transitions.add(r.value());
          }
        });
    return transitions.done();
  }

  /** Every retained version of every resource, with the time it was written. */
  public ConfigHistory config() {
    ConfigHistory history = new ConfigHistory();
    ConfigTopics.readAll(scan, registry, (kind, r, value) -> history.add(kind, r.key(), r.topic(), r.partition(),
        r.offset(), Instant.ofEpochMilli(r.timestamp()), value), warning -> { });
    return history;
  }

  /** Decisions the edges logged for a name and type between {@code from} and {@code to}. */
  public List<DnsDecision> decisions(String name, String type, Instant from, Instant to) {
    List<DnsDecision> found = new ArrayList<>();
    String fqdn = (name.endsWith(".") ? name : name + ".").toLowerCase(Locale.ROOT);
    scan.read(Topics.DNS_DECISIONS.name(), new StringDeserializer(), Topics.DNS_DECISIONS.valueSerde(registry)
        .deserializer(), from, r -> {
          DnsDecision d = r.value();
          if (d != null && !d.getTime().isAfter(to) && !d.getTime().isBefore(from)
              && d.getQueryName().toLowerCase(Locale.ROOT).equals(fqdn) && d.getQueryType().equalsIgnoreCase(type)) {
            found.add(d);
          }
        });
    return found;
  }

  /**
   * Queries the edges logged for clients of logging server policies (R-SP-1) between {@code from}
   * and {@code to} (either null: open), matching the client address and query name when given.
   */
  public List<DnsQueryLog> queries(String client, String name, Instant from, Instant to) {
    List<DnsQueryLog> found = new ArrayList<>();
    String fqdn = name == null ? null : (name.endsWith(".") ? name : name + ".").toLowerCase(Locale.ROOT);
    scan.read(Topics.DNS_QUERY_LOG.name(), new StringDeserializer(), Topics.DNS_QUERY_LOG.valueSerde(registry)
        .deserializer(), from, r -> {
          DnsQueryLog q = r.value();
          if (q != null && (to == null || !q.getTime().isAfter(to)) && (from == null || !q.getTime().isBefore(from))
              && (client == null || q.getClient().equals(client))
              && (fqdn == null || q.getQueryName().toLowerCase(Locale.ROOT).equals(fqdn))) {
            found.add(q);
          }
        });
    return found;
  }

  /** {@code KIND/NAME}, the kind in any case with - or _ (composite-health-check/orders-chc). */
  public static Map.Entry<EntityKind, String> entity(String text) {
    int slash = text.indexOf('/');
    if (slash <= 0) {
      throw new IllegalArgumentException("'" + text + "' is not KIND/NAME, e.g. COMPOSITE_HEALTH_CHECK/orders-chc");
    }
    String kind = text.substring(0, slash).toUpperCase(Locale.ROOT).replace('-', '_');
    try {
      return Map.entry(EntityKind.valueOf(kind), text.substring(slash + 1));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + text.substring(0, slash) + "' is not one of "
          + Arrays.toString(EntityKind.values()));
    }
  }

  static String describe(HealthTransition t) {
    return t.getOldStatus() + " -> " + t.getNewStatus();
  }
}
