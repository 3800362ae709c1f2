package io.healthmesh.edge.answer;

import io.healthmesh.edge.dnssec.OnlineSigning;
import io.healthmesh.edge.dnssec.ResponseSigner;
import io.healthmesh.edge.dnssec.ZoneSigner;
import io.healthmesh.edge.routing.Decision;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.routing.SubnetRegions;
import io.healthmesh.edge.state.RecordSetEntry;
import io.healthmesh.edge.state.Zone;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.ExtendedErrorCodeOption;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.HINFORecord;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * A zone's own answer to a query, on the full path: its record sets routed by the engine for the
 * query's source region (R-GEO-1), CNAMEs followed inside the zone, NXDOMAIN and NODATA with the
 * zone's SOA, and the client subnet echoed with its scope (RFC 7871).
 */
final class ZoneAnswer {
  private static final int MAX_CNAME_CHAIN = 8;

  private final RoutingEngine engine;
  private final String edgeRegion;
  private final SubnetRegions subnets;
  private final Supplier<RandomGenerator> random;
  private final Responder.DecisionListener decisions;
  private final OnlineSigning signing;

  /** @param signing the edge's keys and signatures; null when it signs no zone */
  ZoneAnswer(RoutingEngine engine, String edgeRegion, SubnetRegions subnets, Supplier<RandomGenerator> random,
      Responder.DecisionListener decisions, OnlineSigning signing) {
    this.signing = signing;
    this.engine = engine;
    this.edgeRegion = edgeRegion;
    this.subnets = subnets;
    this.random = random;
    this.decisions = decisions;
  }

  /**
   * The zone's authoritative answer, within {@code maxSize} bytes; signed when the zone is and the
   * query set DO (R-DNSSEC-1), and then, when too big, truncated whole (R-DNSSEC-5).
   */
  byte[] answer(Message query, Zone zone, OPTRecord opt, int maxSize) {
    Record question = query.getQuestion();
    boolean dnssecOk = opt != null && (opt.getFlags() & ExtendedFlags.DO) != 0;
    boolean signed = signing != null && OnlineSigning.signs(zone);
    ZoneSigner signer = signed ? signing.signer(zone.origin()) : null;
    if (dnssecOk && signed && signer == null) {
      return unsignable(query); // R-DNSSEC-3: never an unsigned answer for a signed zone
    }
    Message response = Responder.response(query, Rcode.NOERROR);
    response.getHeader().setFlag(Flags.AA);
    ClientSubnetOption ecs = clientSubnet(opt);
    String region = regionOf(ecs);
    answer(zone, question.getName(), question.getType(), region, ecs, response, signer);
    addOpt(response, opt, ecs, dnssecOk);
    if (!dnssecOk || signer == null) {
      return response.toWire(maxSize);
    }
    if (query.getHeader().getFlag(Flags.CD)) {
      response.getHeader().setFlag(Flags.CD); // RFC 4035 3.1.6
    }
    boolean compactOk = (opt.getFlags() & Responder.CO_FLAG) != 0;
    try {
      ResponseSigner.sign(response, zone, signer, question.getName(), question.getType(), compactOk);
    } catch (RuntimeException e) {
      return unsignable(query);
    }
    byte[] wire = response.toWire();
    if (wire.length <= maxSize) {
      return wire;
    }
    // An RRset cut from its signatures would be bogus: send none, and the client asks over TCP.
    response.removeAllRecords(Section.ANSWER);
    response.removeAllRecords(Section.AUTHORITY);
    response.getHeader().setFlag(Flags.TC);
    return response.toWire();
  }

  /** SERVFAIL with the extended error "RRSIGs missing" (RFC 8914): the edge cannot sign this zone now. */
  private static byte[] unsignable(Message query) {
    Message response = Responder.response(query, Rcode.SERVFAIL);
    response.addRecord(new OPTRecord(Responder.EDNS_PAYLOAD, 0, 0, ExtendedFlags.DO, List.of(
        new ExtendedErrorCodeOption(ExtendedErrorCodeOption.RRSIGS_MISSING, "no active DNSSEC key for this zone"))),
        Section.ADDITIONAL);
    return response.toWire(512);
  }

  /** Follows CNAMEs inside the zone; NXDOMAIN and NODATA carry the zone's SOA (RFC 2308). */
  private void answer(Zone zone, Name qname, int qtype, String region, ClientSubnetOption ecs, Message response,
      ZoneSigner signer) {
    Name name = qname;
    for (int hop = 0; hop < MAX_CNAME_CHAIN; hop++) {
      if (name.equals(zone.origin()) && (qtype == Type.SOA || qtype == Type.ANY)) {
        response.addRecord(zone.soa(), Section.ANSWER);
        return;
      }
      if (name.equals(zone.origin()) && qtype == Type.DNSKEY && signer != null) {
        signer.dnskeys().forEach(r -> response.addRecord(r, Section.ANSWER));
        return;
      }
      Map<Integer, RecordSetEntry> types = zone.types(name);
      if (types == null) {
        if (!zone.exists(name)) {
          response.getHeader().setRcode(Rcode.NXDOMAIN);
        }
        response.addRecord(zone.soa(), Section.AUTHORITY);
        return;
      }
      if (qtype == Type.ANY) {
        // RFC 8482: a minimal answer instead of every record set.
        response.addRecord(new HINFORecord(name, DClass.IN, 3600, "RFC8482", ""), Section.ANSWER);
        return;
      }
      RecordSetEntry entry = types.get(qtype);
      if (entry != null) {
        List<Record> answer = records(entry, name, region, ecs);
        answer.forEach(r -> response.addRecord(r, Section.ANSWER));
        if (answer.isEmpty()) {
          response.addRecord(zone.soa(), Section.AUTHORITY); // NODATA: a record set failing closed (R-OP-1)
        }
        return;
      }
      RecordSetEntry cname = types.get(Type.CNAME);
      if (cname == null) {
        response.addRecord(zone.soa(), Section.AUTHORITY); // NODATA
        return;
      }
      List<Record> alias = records(cname, name, region, ecs);
      alias.forEach(r -> response.addRecord(r, Section.ANSWER));
      if (alias.isEmpty()) {
        response.addRecord(zone.soa(), Section.AUTHORITY);
        return;
      }
      name = ((CNAMERecord) alias.get(0)).getTarget();
      if (!name.subdomain(zone.origin())) {
        return; // the resolver follows it outside the zone
      }
    }
  }

  private List<Record> records(RecordSetEntry entry, Name name, String region, ClientSubnetOption ecs) {
    String subnet = ecs == null ? null : ecs.getAddress().getHostAddress() + "/" + ecs.getSourcePrefixLength();
    Decision decision;
    if (entry.dryRun() == null) {
      decision = engine.answer(entry.plan(), region, random.get());
    } else {
      // R-OP-5: both from one seed, so that an answer that differs differs by policy, not by the draw
      long seed = random.get().nextLong();
      decision = engine.answer(entry.plan(), region, new SplittableRandom(seed));
      Decision dry = engine.answer(entry.dryRun().plan(), region, new SplittableRandom(seed));
      decisions.dryRun(name, entry.type(), region, subnet, entry, dry,
          !new HashSet<>(dry.answer()).equals(new HashSet<>(decision.answer())));
    }
    decisions.decided(name, entry.type(), region, subnet, entry, decision);
    List<Record> records = new ArrayList<>(decision.answer().size());
    for (String rrdata : decision.answer()) {
      Record record = entry.records().get(rrdata);
      if (record != null) { // a record set with an unparseable rrdata never reaches a snapshot
        records.add(record);
      }
    }
    return records;
  }

  private static ClientSubnetOption clientSubnet(OPTRecord opt) {
    if (opt == null) {
      return null;
    }
    for (EDNSOption option : opt.getOptions(EDNSOption.Code.CLIENT_SUBNET)) {
      return (ClientSubnetOption) option;
    }
    return null;
  }

  /** R-GEO-1: the edge's region, unless the client subnet is mapped to another. */
  private String regionOf(ClientSubnetOption ecs) {
    String mapped = ecs == null ? null : subnets.regionOf(ecs.getAddress().getAddress(), ecs.getSourcePrefixLength());
    return mapped == null ? edgeRegion : mapped;
  }

  /**
   * RFC 7871: echo the subnet, with the scope that the answer depended on. Where subnets are mapped
   * to regions, an unmapped subnet's answer depends on its subnet too (a mapped one would get
   * another), so it carries the source prefix as well: a scope of 0 would let a caching resolver
   * give it to every subnet, the mapped ones included. Without mappings no answer depends on it.
   */
  private void addOpt(Message response, OPTRecord queryOpt, ClientSubnetOption ecs, boolean dnssecOk) {
    if (queryOpt == null) {
      return;
    }
    List<EDNSOption> options = new ArrayList<>();
    if (ecs != null) {
      int scope = subnets.isEmpty() ? 0 : ecs.getSourcePrefixLength();
      options.add(new ClientSubnetOption(ecs.getSourcePrefixLength(), scope, ecs.getAddress()));
    }
    // RFC 3225 3: the DO bit is copied into the response
    response.addRecord(new OPTRecord(Responder.EDNS_PAYLOAD, 0, 0, dnssecOk ? ExtendedFlags.DO : 0, options),
        Section.ADDITIONAL);
  }
}
