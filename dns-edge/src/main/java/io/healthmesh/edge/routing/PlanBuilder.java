package io.healthmesh.edge.routing;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.config.GeoItem;
import io.healthmesh.config.GeoPolicy;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.LoadBalancerTarget;
import io.healthmesh.config.PrimaryBackupPolicy;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.WrrItem;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthStatus;
import io.healthmesh.net.IpAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/** Turns a record set and the current health of its targets into a {@link Plan}. */
public final class PlanBuilder {

  /** What the edge knows: forwarding rules by name and the published health of entities. */
  public interface Targets {
    /** The forwarding rule, or null when the configuration has none of that name. */
    ForwardingRule forwardingRule(String name);

    /** The entity's published state; UNKNOWN when there is none. */
    HealthStatus health(EntityKind kind, String name);

    /** While the entity is UNKNOWN: the state it had before, and since when it is UNKNOWN; else null. */
    default LastKnown lastKnown(EntityKind kind, String name) {
      return null;
    }

    /** The instant, epoch milliseconds, the plan is for: what a last known state's age is measured at. */
    default long now() {
      return 0;
    }

    /** The plan built for this instant changes at {@code millis} without any new record (R-OP-2). */
    default void changesAt(long millis) {}
  }

  /** An UNKNOWN target's state before it became UNKNOWN (R-OP-2). */
  public record LastKnown(HealthStatus status, long unknownSinceMillis) {}

  private PlanBuilder() {}

  public static Plan plan(ResourceRecordSet rrs, Targets targets) {
    RoutingPolicy policy = rrs.getRoutingPolicy();
    if (policy == null) {
      return new Plan.Static(rrs.getRrdatas());
    }
    Plan plan = routed(policy, new Counted(policy, targets));
    return switch (policy.getAllUnhealthyBehavior()) { // R-OP-1
      case FAIL_CLOSED -> new Plan.FailClosed(plan, List.of());
      case FALLBACK -> new Plan.FailClosed(plan, policy.getFallbackRrdatas());
      default -> plan;
    };
  }

  private static Plan routed(RoutingPolicy policy, Counted targets) {
    if (policy.getWrr() != null) {
      List<Bucket> items = new ArrayList<>();
      List<WrrItem> wrr = policy.getWrr().getItems();
      for (int i = 0; i < wrr.size(); i++) {
        WrrItem item = wrr.get(i);
        items.add(new Bucket("wrr[" + i + "]", item.getWeight(), "",
            addresses(item.getRrdatas(), item.getHealthCheckedTargets(), targets)));
      }
      return new Plan.Wrr(items);
    }
    if (policy.getGeo() != null) {
      return geo(policy.getGeo(), targets);
    }
    PrimaryBackupPolicy fo = policy.getPrimaryBackup();
    Map<String, Address> primary = targetAddresses(fo.getPrimaryTargets(), targets);
    return new Plan.Failover(new Bucket("primary", 0, "", new ArrayList<>(primary.values())),
        geo(fo.getBackupGeoTargets(), targets), fo.getTrickleTraffic());
  }

  /**
   * Every entity whose health or configuration {@link #plan} reads for this record set: forwarding
   * rules by name (their address and health) and external endpoints by address. A change to any
   * other entity leaves the plan as it is.
   */
  public static void checkedTargets(ResourceRecordSet rrs, BiConsumer<EntityKind, String> target) {
    RoutingPolicy policy = rrs.getRoutingPolicy();
    if (policy == null) {
      return;
    }
    if (policy.getWrr() != null) {
      policy.getWrr().getItems().forEach(item -> checked(item.getHealthCheckedTargets(), target));
    } else if (policy.getGeo() != null) {
      policy.getGeo().getItems().forEach(item -> checked(item.getHealthCheckedTargets(), target));
    } else if (policy.getPrimaryBackup() != null) {
      checked(policy.getPrimaryBackup().getPrimaryTargets(), target);
      policy.getPrimaryBackup().getBackupGeoTargets().getItems()
          .forEach(item -> checked(item.getHealthCheckedTargets(), target));
    }
  }

  private static void checked(HealthCheckedTargets checked, BiConsumer<EntityKind, String> target) {
    if (checked == null) {
      return;
    }
    checked.getInternalLoadBalancers().forEach(lb -> target.accept(EntityKind.FORWARDING_RULE, lb.getForwardingRule()));
    checked.getExternalEndpoints()
        .forEach(address -> target.accept(EntityKind.EXTERNAL_ENDPOINT, IpAddress.canonicalOrSame(address)));
  }

  private static Plan.Geo geo(GeoPolicy geo, Counted targets) {
    List<Bucket> items = new ArrayList<>();
    for (GeoItem item : geo.getItems()) {
      items.add(new Bucket("geo[" + item.getLocation() + "]", 0, item.getLocation(),
          addresses(item.getRrdatas(), item.getHealthCheckedTargets(), targets)));
    }
    return new Plan.Geo(items, geo.getEnableFencing());
  }

  /**
   * An rrdata is health checked when one of the item's targets has that address, however either
   * is spelled (R-DNSHC-1): both are compared in canonical form.
   */
  private static List<Address> addresses(List<String> rrdatas, HealthCheckedTargets checked, Counted targets) {
    Map<String, Address> byAddress = targetAddresses(checked, targets);
    List<Address> addresses = new ArrayList<>();
    for (String rrdata : rrdatas) {
      Address target = byAddress.get(IpAddress.canonicalOrSame(rrdata));
      addresses.add(target == null ? Address.unchecked(rrdata)
          : target.rrdata().equals(rrdata) ? target : target.as(rrdata));
    }
    return addresses;
  }

  private static Map<String, Address> targetAddresses(HealthCheckedTargets checked, Counted targets) {
    Map<String, Address> byAddress = new LinkedHashMap<>();
    if (checked == null) {
      return byAddress;
    }
    for (LoadBalancerTarget lb : checked.getInternalLoadBalancers()) {
      ForwardingRule rule = targets.forwardingRule(lb.getForwardingRule());
      if (rule != null) {
        String address = IpAddress.canonicalOrSame(rule.getIpAddress());
        byAddress.put(address, targets.address(address, EntityKind.FORWARDING_RULE, rule.getName()));
      }
    }
    for (String external : checked.getExternalEndpoints()) {
      String address = IpAddress.canonicalOrSame(external);
      byAddress.put(address, targets.address(address, EntityKind.EXTERNAL_ENDPOINT, address));
    }
    return byAddress;
  }

  /** The targets as one record set's {@code unknownTargets} counts them (R-OP-2). */
  private record Counted(RoutingPolicy policy, Targets targets) {
    ForwardingRule forwardingRule(String name) {
      return targets.forwardingRule(name);
    }

    Address address(String address, EntityKind kind, String name) {
      HealthStatus status = targets.health(kind, name);
      return new Address(address, true, status, status == HealthStatus.UNKNOWN ? unknown(kind, name) : status);
    }

    private HealthStatus unknown(EntityKind kind, String name) {
      switch (policy.getUnknownTargets()) {
        case COUNT_UNHEALTHY:
          return HealthStatus.UNHEALTHY;
        case LAST_KNOWN:
          LastKnown last = targets.lastKnown(kind, name);
          if (last == null || last.status() == HealthStatus.UNKNOWN) {
            return HealthStatus.UNKNOWN;
          }
          long until = last.unknownSinceMillis() + policy.getLastKnownMaxAgeSeconds() * 1000L;
          if (targets.now() >= until) {
            return HealthStatus.UNKNOWN; // too old: counted as the default does
          }
          targets.changesAt(until);
          return last.status();
        default:
          return HealthStatus.UNKNOWN;
      }
    }
  }
}
