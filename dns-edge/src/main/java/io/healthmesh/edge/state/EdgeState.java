package io.healthmesh.edge.state;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.edge.routing.Plan;
import io.healthmesh.edge.rules.DnsConfigRules;
import io.healthmesh.edge.routing.PlanBuilder;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * What an edge has read from the topics, kept by the one thread that follows them and turned
 * into an immutable {@link Snapshot} after each change. The edge stores nothing of its own.
 */
public final class EdgeState {
  private static final Logger LOG = LoggerFactory.getLogger(EdgeState.class);

  private final Map<String, ManagedZone> zones = new HashMap<>();
  private final Map<String, ResourceRecordSet> recordSets = new HashMap<>();
  private final Map<String, Long> recordSetOffsets = new HashMap<>();
  private final Map<String, ForwardingRule> forwardingRules = new HashMap<>();
  private final Map<String, HealthStatus> health = new HashMap<>();
  private final Map<String, Long> offsets = new HashMap<>();
  private long version;
  private long rejected;

  public EdgeState() {
    this(0);
  }

  /** @param version the version of the last snapshot built before, so that SOA serials never go back */
  public EdgeState(long version) {
    this.version = version;
  }

  /** The version of the last snapshot built. */
  public long version() {
    return version;
  }

  public void zone(String name, ManagedZone zone) {
    if (zone == null || accepted("zone " + name, DnsConfigRules.zone(name, zone))) {
      put(zones, name, zone);
    }
  }

  /** A record set that breaks a rule is not served; the previous valid version stays in force. */
  public void recordSet(String key, ResourceRecordSet rrs, long offset) {
    if (rrs != null && !accepted("record set " + key, DnsConfigRules.recordSet(key, rrs, null))) {
      return;
    }
    put(recordSets, key, rrs);
    put(recordSetOffsets, key, rrs == null ? null : offset);
  }

  /** Configuration records ignored because they broke a SPEC rule. */
  public long rejected() {
    return rejected;
  }

  private boolean accepted(String what, List<String> problems) {
    if (problems.isEmpty()) {
      return true;
    }
    rejected++;
    LOG.warn("{} rejected, the previous version stays in force: {}", what, String.join("; ", problems));
    return false;
  }

  public void forwardingRule(String name, ForwardingRule rule) {
    put(forwardingRules, name, rule);
  }

  /** {@code status} null: the entity is gone, so its health is UNKNOWN again. */
  public void health(EntityKind kind, String name, HealthStatus status) {
    put(health, kind + "|" + name, status);
  }

  public void offset(String topicPartition, long offset) {
    offsets.put(topicPartition, offset);
  }

  /** Plans every record set against the current health. */
  public Snapshot snapshot(boolean ready) {
    version++;
    PlanBuilder.Targets targets = new PlanBuilder.Targets() {
      @Override
      public ForwardingRule forwardingRule(String name) {
        return forwardingRules.get(name);
      }

      @Override
      public HealthStatus health(EntityKind kind, String name) {
        return health.getOrDefault(kind + "|" + name, HealthStatus.UNKNOWN);
      }
    };
    List<Zone> built = new ArrayList<>();
    Map<String, Map<Name, Map<Integer, RecordSetEntry>>> byZone = new HashMap<>();
    recordSets.forEach((key, rrs) -> {
      try {
        Name owner = Name.fromString(rrs.getName(), Name.root);
        int type = Type.value(rrs.getType());
        if (type < 0) {
          throw new TextParseException("unknown type " + rrs.getType());
        }
        byZone.computeIfAbsent(rrs.getZone(), z -> new HashMap<>()).computeIfAbsent(owner, n -> new HashMap<>())
            .put(type, entry(rrs, owner, type, PlanBuilder.plan(rrs, targets), recordSetOffsets.get(key)));
      } catch (TextParseException | RuntimeException e) {
        LOG.warn("record set {} left out of the snapshot: {}", key, e.toString());
      }
    });
    zones.forEach((name, zone) -> {
      try {
        Name origin = Name.fromString(zone.getDnsName(), Name.root);
        List<Cidr> networks = zone.getNetworks().stream().map(Cidr::parse).toList();
        SOARecord soa = new SOARecord(origin, DClass.IN, zone.getSoaMinimumTtl(), Name.fromString("ns1", origin),
            Name.fromString("hostmaster", origin), version, 3600, 600, 86400, zone.getSoaMinimumTtl());
        Map<Name, Map<Integer, RecordSetEntry>> names = new HashMap<>();
        byZone.getOrDefault(name, Map.of()).forEach((owner, types) -> {
          if (owner.subdomain(origin)) {
            names.put(owner, Map.copyOf(types));
          }
        });
        built.add(new Zone(zone, origin, networks, soa, Map.copyOf(names), existing(origin, names.keySet())));
      } catch (TextParseException | RuntimeException e) {
        LOG.warn("zone {} left out of the snapshot: {}", name, e.toString());
      }
    });
    return new Snapshot(ready, version, built, offsets, System.currentTimeMillis());
  }

  /** The apex, every owner, and every name between an owner and the apex (RFC 8020 empty non-terminals). */
  private static java.util.Set<Name> existing(Name origin, java.util.Set<Name> owners) {
    java.util.Set<Name> existing = new java.util.HashSet<>();
    existing.add(origin);
    for (Name owner : owners) {
      for (Name n = owner; n.labels() > origin.labels() && existing.add(n); n = new Name(n, 1)) {
        // walk up to the apex, stopping where an earlier owner already walked
      }
    }
    return java.util.Set.copyOf(existing);
  }

  private static RecordSetEntry entry(ResourceRecordSet rrs, Name owner, int type, Plan plan, long version)
      throws TextParseException {
    Map<String, Record> records = new HashMap<>();
    Map<String, byte[]> wire = new HashMap<>();
    for (String rrdata : rrdatas(plan)) {
      Record record;
      try {
        record = Record.fromString(owner, type, DClass.IN, rrs.getTtl(), rrdata, owner);
      } catch (IOException e) {
        throw new TextParseException("rrdata '" + rrdata + "' is not valid " + rrs.getType() + ": " + e.getMessage());
      }
      records.put(rrdata, record);
      if (type == Type.A || type == Type.AAAA) {
        byte[] data = record.rdataToWireCanonical();
        java.nio.ByteBuffer tail = java.nio.ByteBuffer.allocate(10 + data.length);
        tail.putShort((short) type).putShort((short) DClass.IN).putInt((int) rrs.getTtl()).putShort((short) data.length)
            .put(data);
        wire.put(rrdata, tail.array());
      }
    }
    return new RecordSetEntry(rrs, type, plan, version, Map.copyOf(records), Map.copyOf(wire));
  }

  private static List<String> rrdatas(Plan plan) {
    List<String> all = new ArrayList<>();
    if (plan instanceof Plan.Static s) {
      all.addAll(s.rrdatas());
    } else if (plan instanceof Plan.Wrr w) {
      w.items().forEach(b -> b.addresses().forEach(a -> all.add(a.rrdata())));
    } else if (plan instanceof Plan.Geo g) {
      g.items().forEach(b -> b.addresses().forEach(a -> all.add(a.rrdata())));
    } else if (plan instanceof Plan.Failover f) {
      f.primary().addresses().forEach(a -> all.add(a.rrdata()));
      all.addAll(rrdatas(f.backup()));
    }
    return all;
  }

  private static <V> void put(Map<String, V> map, String key, V value) {
    if (value == null) {
      map.remove(key);
    } else {
      map.put(key, value);
    }
  }
}
