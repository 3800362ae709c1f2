package io.healthmesh.edge.rules;

import io.healthmesh.config.AllUnhealthyBehavior;
import io.healthmesh.config.GeoItem;
import io.healthmesh.config.GeoPolicy;
import io.healthmesh.config.HealthCheckedTargets;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.PrimaryBackupPolicy;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.RoutingPolicy;
import io.healthmesh.config.UnknownTargetBehavior;
import io.healthmesh.config.WrrItem;
import io.healthmesh.config.ZoneType;
import io.healthmesh.config.ZoneVisibility;
import io.healthmesh.net.Cidr;
import io.healthmesh.net.IpAddress;
import io.healthmesh.rules.HealthCheckRules;
import io.healthmesh.rules.ResourceNames;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * docs/rules.md section 4 limits on zones and record sets, checked by {@code healthctl} before it writes and
 * by the edge before it serves. Each method returns every problem as {@code field: message (rule id)};
 * empty means valid.
 */
public final class DnsConfigRules {
  public static final int MAX_WEIGHT = 1000;
  /** What a dry-run record set's key ends in (R-OP-5). */
  public static final String DRY_RUN = "/dry-run";
  /** R-OP-2: a last known state older than a day says nothing about the target now. */
  public static final int MAX_LAST_KNOWN_SECONDS = 86_400;
  /** Types a record set may have; the same ones may carry a routing policy (docs/rules.md section 4). */
  public static final Set<String> TYPES = Set.of("A", "AAAA", "CNAME", "MX", "SRV", "TXT");
  private static final Set<String> CHECKABLE_TYPES = Set.of("A", "AAAA");

  private DnsConfigRules() {}

  /** The record-set key on its topic: {@code <zone>/<name>/<type>}. */
  /** {@code zone/name/type}; a dry run's ends in {@link #DRY_RUN}, so that it sits beside the live one (R-OP-5). */
  public static String key(ResourceRecordSet rrs) {
    return rrs.getZone() + "/" + rrs.getName() + "/" + rrs.getType() + (rrs.getDryRun() ? DRY_RUN : "");
  }

  /** R-OP-5: the live record set a dry run's key sits beside; the key itself when it is live. */
  public static String liveKey(String key) {
    return key.endsWith(DRY_RUN) ? key.substring(0, key.length() - DRY_RUN.length()) : key;
  }

  public static List<String> zone(String key, ManagedZone z) {
    List<String> problems = new ArrayList<>();
    if (!key.equals(z.getName())) {
      problems.add("name: '" + z.getName() + "' differs from the record key '" + key + "'");
    }
    String invalid = ResourceNames.problem("name", z.getName());
    if (invalid != null) {
      problems.add(invalid);
    }
    if (!z.getDnsName().endsWith(".") || parseName(z.getDnsName()) == null) {
      problems.add("dnsName: '" + z.getDnsName() + "' is not an absolute domain name (ending in '.')");
    }
    for (String network : z.getNetworks()) {
      try {
        Cidr.parse(network);
      } catch (IllegalArgumentException e) {
        problems.add("networks: " + e.getMessage());
      }
    }
    if (z.getVisibility() == ZoneVisibility.PRIVATE && z.getNetworks().isEmpty()) {
      problems.add("networks: a private zone needs at least one network allowed to query it");
    }
    if (z.getSoaMinimumTtl() < 0) {
      problems.add("soaMinimumTtl: " + z.getSoaMinimumTtl() + " must be at least 0");
    }
    problems.addAll(PolicyRules.forwarding(z));
    return problems;
  }

  /** What is allowed but worth saying when the record set is validated or applied. */
  public static List<String> warnings(ResourceRecordSet r) {
    RoutingPolicy policy = r.getRoutingPolicy();
    if (policy == null || policy.getHealthCheck() == null) {
      return List.of();
    }
    return HealthCheckRules.externalWarnings("routingPolicy.healthCheck", policy.getHealthCheck());
  }

  /**
   * What a record set that is valid on its own ({@code recordSet(key, r, null)} is empty: the
   * callers check that first) breaks because of its zone's type, visibility or DNSSEC (R-DNS-2,
   * R-DNS-3, R-FO-6, R-DNSHC-5): what makes a zone version and record sets in it incompatible. A
   * name outside the zone's DNS name is not among them: such a record set is simply not served
   * until the zone covers it.
   */
  public static List<String> policyInZone(String key, ResourceRecordSet r, ManagedZone zone) {
    if (zone.getVisibility() == ZoneVisibility.PRIVATE && zone.getZoneType() == ZoneType.STANDARD
        && (!zone.getDnssecEnabled() || zone.getDnssecAnySubset())) {
      return List.of(); // every policy is allowed there
    }
    // The zone at the root contains every name, so only the rules on its other fields speak.
    return recordSet(key, r, ManagedZone.newBuilder(zone).setDnsName(".").build());
  }

  /** @param zone the record set's zone, or null when it is not known (then zone rules are skipped) */
  public static List<String> recordSet(String key, ResourceRecordSet r, ManagedZone zone) {
    List<String> problems = new ArrayList<>();
    if (!key.equals(key(r))) {
      problems.add("name: '" + key(r) + "' differs from the record key '" + key + "'");
    }
    Name owner = parseName(r.getName());
    if (owner == null || !r.getName().endsWith(".")) {
      problems.add("name: '" + r.getName() + "' is not an absolute domain name (ending in '.')");
    } else if (zone != null && parseName(zone.getDnsName()) != null && !owner.subdomain(parseName(zone.getDnsName()))) {
      problems.add("name: '" + r.getName() + "' is not inside zone '" + zone.getName() + "' (" + zone.getDnsName() + ")");
    }
    if (!TYPES.contains(r.getType())) {
      problems.add("type: '" + r.getType() + "' is not one of " + new TreeSet<>(TYPES));
    }
    if (zone != null && zone.getZoneType() == ZoneType.FORWARDING) {
      problems.add("zone: '" + zone.getName() + "' is a FORWARDING zone; its names are answered by its target name"
          + " servers, so it holds no record sets (R-SP-1)");
    }
    if (r.getTtl() < 0) {
      problems.add("ttl: " + r.getTtl() + " must be at least 0");
    }
    RoutingPolicy policy = r.getRoutingPolicy();
    if (policy == null) {
      if (r.getRrdatas().isEmpty()) {
        problems.add("rrdatas: a record set needs rrdatas or a routingPolicy");
      }
      rrdatas("rrdatas", r, r.getRrdatas(), problems);
      return problems;
    }
    if (!r.getRrdatas().isEmpty()) {
      problems.add("rrdatas: a record set with a routingPolicy takes its rrdatas from the policy items (R-DNS-1)");
    }
    int types = (policy.getWrr() != null ? 1 : 0) + (policy.getGeo() != null ? 1 : 0)
        + (policy.getPrimaryBackup() != null ? 1 : 0);
    if (types != 1) {
      problems.add("routingPolicy: sets " + types + " policy types; exactly one of wrr, geo, primaryBackup is allowed"
          + " (a failover's backup is its own geo policy) (R-DNS-1)");
    }
    if (policy.getHealthCheck() != null) {
      problems.addAll(HealthCheckRules.externalProblems("routingPolicy.healthCheck", policy.getHealthCheck()));
    }
    allUnhealthy(r, policy, problems);
    unknownTargets(policy, problems);
    if (zone != null && zone.getZoneType() != ZoneType.STANDARD) {
      problems.add("routingPolicy: zone '" + zone.getName() + "' is a " + zone.getZoneType()
          + " zone; routing policies are allowed only in standard zones (R-DNS-2)");
    }
    List<HealthCheckedTargets> checked = new ArrayList<>();
    List<List<String>> itemRrdatas = new ArrayList<>();
    if (policy.getWrr() != null) {
      List<WrrItem> items = policy.getWrr().getItems();
      if (items.isEmpty()) {
        problems.add("routingPolicy.wrr.items: at least one item is needed (R-WRR-2)");
      }
      for (int i = 0; i < items.size(); i++) {
        WrrItem item = items.get(i);
        String field = "routingPolicy.wrr.items[" + i + "]";
        if (item.getWeight() < 0 || item.getWeight() > MAX_WEIGHT) {
          problems.add(field + ".weight: " + item.getWeight() + " is outside 0.." + MAX_WEIGHT + " (R-WRR-1)");
        }
        item(field, r, item.getRrdatas(), item.getHealthCheckedTargets(), problems);
        checked.add(item.getHealthCheckedTargets());
        itemRrdatas.add(item.getRrdatas());
      }
    }
    if (policy.getGeo() != null) {
      geo("routingPolicy.geo", r, policy.getGeo(), checked, itemRrdatas, problems);
    }
    PrimaryBackupPolicy fo = policy.getPrimaryBackup();
    if (fo != null) {
      if (!(fo.getTrickleTraffic() >= 0 && fo.getTrickleTraffic() <= 1)) {
        problems.add("routingPolicy.primaryBackup.trickleTraffic: " + fo.getTrickleTraffic() + " is outside 0..1 (R-FO-3)");
      }
      if (zone != null && zone.getVisibility() != ZoneVisibility.PRIVATE) {
        problems.add("routingPolicy.primaryBackup: zone '" + zone.getName()
            + "' is public; failover policies are allowed only in private zones (R-FO-6)");
      }
      HealthCheckedTargets primary = fo.getPrimaryTargets();
      if (primary.getInternalLoadBalancers().isEmpty() && primary.getExternalEndpoints().isEmpty()) {
        problems.add("routingPolicy.primaryBackup.primaryTargets: at least one load balancer or external endpoint (R-FO-1)");
      }
      checked.add(primary);
      // each target of the primary set is one address
      itemRrdatas.add(Collections.nCopies(
          primary.getInternalLoadBalancers().size() + primary.getExternalEndpoints().size(), ""));
      targets("routingPolicy.primaryBackup.primaryTargets", r, primary, problems);
      geo("routingPolicy.primaryBackup.backupGeoTargets", r, fo.getBackupGeoTargets(), checked, itemRrdatas, problems);
    }
    boolean anyChecked = checked.stream().anyMatch(t -> t != null);
    if (anyChecked && zone != null) {
      boolean internalLb = checked.stream().anyMatch(t -> t != null && !t.getInternalLoadBalancers().isEmpty());
      if (internalLb && zone.getVisibility() != ZoneVisibility.PRIVATE) {
        problems.add("routingPolicy: zone '" + zone.getName()
            + "' is public; health checks of internal load balancers exist only in private zones (R-DNSHC-5)");
      }
      if (zone.getDnssecEnabled() && !zone.getDnssecAnySubset()) { // R-DNSSEC-6 lifts R-DNS-3
        dnssec(checked, itemRrdatas, problems);
      }
    }
    return problems;
  }

  private static void geo(String field, ResourceRecordSet r, GeoPolicy geo, List<HealthCheckedTargets> checked,
      List<List<String>> itemRrdatas, List<String> problems) {
    if (geo.getItems().isEmpty()) {
      problems.add(field + ".items: at least one item is needed (R-GEO-1)");
    }
    Set<String> locations = new HashSet<>();
    for (int i = 0; i < geo.getItems().size(); i++) {
      GeoItem item = geo.getItems().get(i);
      String itemField = field + ".items[" + i + "]";
      if (item.getLocation().isBlank()) {
        problems.add(itemField + ".location: required, a cloud region (R-GEO-1)");
      } else if (!locations.add(item.getLocation())) {
        problems.add(itemField + ".location: '" + item.getLocation() + "' appears twice (R-GEO-1)");
      }
      item(itemField, r, item.getRrdatas(), item.getHealthCheckedTargets(), problems);
      checked.add(item.getHealthCheckedTargets());
      itemRrdatas.add(item.getRrdatas());
    }
  }

  private static void item(String field, ResourceRecordSet r, List<String> rrdatas, HealthCheckedTargets checked,
      List<String> problems) {
    if (rrdatas.isEmpty()) {
      problems.add(field + ".rrdatas: at least one rrdata is needed (R-DNS-4)");
    }
    rrdatas(field + ".rrdatas", r, rrdatas, problems);
    if (checked != null) {
      targets(field + ".healthCheckedTargets", r, checked, problems);
      if (!CHECKABLE_TYPES.contains(r.getType())) {
        return;
      }
      Set<String> answered = new HashSet<>();
      rrdatas.forEach(rrdata -> answered.add(IpAddress.canonicalOrSame(rrdata)));
      for (String address : checked.getExternalEndpoints()) {
        String canonical = IpAddress.canonical(address); // null: reported above as not an address
        if (canonical != null && !answered.contains(canonical)) {
          problems.add(field + ".healthCheckedTargets.externalEndpoints: '" + address + "' is none of the item's rrdatas,"
              + " so its health would decide nothing (R-DNSHC-1)");
        }
      }
    }
  }

  private static void targets(String field, ResourceRecordSet r, HealthCheckedTargets checked, List<String> problems) {
    if (!CHECKABLE_TYPES.contains(r.getType())) {
      problems.add(field + ": health checking applies to A and AAAA record sets only, not " + r.getType()
          + " (docs/rules.md section 4)");
      return;
    }
    for (String address : checked.getExternalEndpoints()) {
      if (!isAddress(address, r.getType())) {
        problems.add(field + ".externalEndpoints: '" + address + "' is not an " + r.getType() + " address (R-DNSHC-1)");
      }
    }
    for (var lb : checked.getInternalLoadBalancers()) {
      if (lb.getForwardingRule().isBlank()) {
        problems.add(field + ".internalLoadBalancers: forwardingRule is required (R-DNSHC-1)");
      }
    }
  }

  /** R-DNS-3: with DNSSEC, one address per item and no mix of checked and unchecked items. */
  private static void dnssec(List<HealthCheckedTargets> checked, List<List<String>> itemRrdatas, List<String> problems) {
    if (checked.stream().anyMatch(t -> t == null)) {
      problems.add("routingPolicy: the zone has DNSSEC on, so a policy cannot mix health-checked and un-checked items (R-DNS-3)");
    }
    if (itemRrdatas.stream().anyMatch(rrdatas -> rrdatas.size() != 1)) {
      problems.add("routingPolicy: the zone has DNSSEC on and the policy uses health checks, so each item holds a single"
          + " IP address (R-DNS-3)");
    }
  }

  /** R-OP-1: FALLBACK names the records it answers with; the other behaviours name none. */
  private static void allUnhealthy(ResourceRecordSet r, RoutingPolicy policy, List<String> problems) {
    List<String> fallback = policy.getFallbackRrdatas();
    if (policy.getAllUnhealthyBehavior() == AllUnhealthyBehavior.FALLBACK) {
      if (fallback.isEmpty()) {
        problems.add("routingPolicy.fallbackRrdatas: allUnhealthyBehavior FALLBACK needs the records to answer"
            + " with (R-OP-1)");
      }
      rrdatas("routingPolicy.fallbackRrdatas", r, fallback, problems);
    } else if (!fallback.isEmpty()) {
      problems.add("routingPolicy.fallbackRrdatas: only with allUnhealthyBehavior FALLBACK, not "
          + policy.getAllUnhealthyBehavior() + " (R-OP-1)");
    }
  }

  /** R-OP-2: LAST_KNOWN says for how long; the other behaviours take no age. */
  private static void unknownTargets(RoutingPolicy policy, List<String> problems) {
    int age = policy.getLastKnownMaxAgeSeconds();
    if (policy.getUnknownTargets() == UnknownTargetBehavior.LAST_KNOWN) {
      if (age < 1 || age > MAX_LAST_KNOWN_SECONDS) {
        problems.add("routingPolicy.lastKnownMaxAgeSeconds: " + age + " with unknownTargets LAST_KNOWN must be 1 to "
            + MAX_LAST_KNOWN_SECONDS + " (R-OP-2)");
      }
    } else if (age != 0) {
      problems.add("routingPolicy.lastKnownMaxAgeSeconds: only with unknownTargets LAST_KNOWN, not "
          + policy.getUnknownTargets() + " (R-OP-2)");
    }
  }

  private static void rrdatas(String field, ResourceRecordSet r, List<String> rrdatas, List<String> problems) {
    int type = Type.value(r.getType());
    Name owner = parseName(r.getName());
    if (type < 0 || owner == null || !TYPES.contains(r.getType())) {
      return;
    }
    for (String rrdata : rrdatas) {
      try {
        record(owner, type, Math.max(0, r.getTtl()), rrdata);
      } catch (IOException | RuntimeException e) {
        problems.add(field + ": '" + rrdata + "' is not valid " + r.getType() + " data: " + e.getMessage());
      }
    }
  }

  private static boolean isAddress(String text, String type) {
    byte[] bytes = IpAddress.parse(text);
    return bytes != null && (bytes.length == 4 ? type.equals("A") : type.equals("AAAA"));
  }

  /**
   * One rrdata as the record the edge serves; the check above and the edge's snapshot both read
   * rrdatas through here. Addresses are read by {@link IpAddress}, as every component reads them;
   * IPv4 ones are built straight, without dnsjava's tokenizer (most of the cost of reading 100,000
   * record sets).
   */
  public static Record record(Name owner, int type, long ttl, String rrdata) throws IOException {
    if (type == Type.A || type == Type.AAAA) {
      byte[] bytes = IpAddress.parse(rrdata);
      if (bytes == null || bytes.length != (type == Type.A ? 4 : 16)) {
        throw new TextParseException("'" + rrdata + "' is not an " + (type == Type.A ? "IPv4" : "IPv6") + " address");
      }
      if (type == Type.A) {
        return new ARecord(owner, DClass.IN, ttl, InetAddress.getByAddress(bytes));
      }
    }
    return Record.fromString(owner, type, DClass.IN, ttl, rrdata, owner);
  }

  private static Name parseName(String text) {
    try {
      return Name.fromString(text, Name.root);
    } catch (TextParseException e) {
      return null;
    }
  }
}
