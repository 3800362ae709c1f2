package io.healthmesh.edge.answer;

import io.healthmesh.edge.dnssec.OnlineSigning;
import io.healthmesh.edge.policy.Access;
import io.healthmesh.edge.policy.RuleEntry;
import io.healthmesh.edge.routing.Decision;
import io.healthmesh.edge.routing.RoutingEngine;
import io.healthmesh.edge.routing.SubnetRegions;
import io.healthmesh.edge.state.RecordSetEntry;
import io.healthmesh.edge.state.Route;
import io.healthmesh.edge.state.Snapshot;
import io.healthmesh.edge.state.Zone;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Header;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Answers one DNS query from the current snapshot: one {@code reply} with guard clauses that map
 * each problem to its response code, as dnsjava's jnamed does. Never throws for bad input.
 */
public final class Responder {
  /** Largest EDNS payload this server advertises and accepts (RFC 6891 suggests 1232 on the Internet). */
  static final int EDNS_PAYLOAD = 1232;
  /** RFC 9824's Compact Answers OK flag in the EDNS header, beside DO. */
  static final int CO_FLAG = 0x4000;

  private final Supplier<Snapshot> snapshot;
  private final RoutingEngine engine;
  private final String edgeRegion;
  private final int notReadyRcode;
  private final Supplier<RandomGenerator> random;
  private final DecisionListener decisions;
  private final ZoneAnswer zones;
  private final Forwarding forwarding;
  private final PolicyListener policies;
  private final OnlineSigning signing;

  /** A reply that follows later, through the {@link Later} given with the query (a forwarded one). */
  public static final byte[] LATER = new byte[0];

  /** Where a reply that is not ready at once goes (a forwarded query's). */
  public interface Later {
    /**
     * Called on the query's own thread, and only when its reply will follow: what sends it, once,
     * from another thread. So a query answered at once costs its listener nothing.
     */
    Consumer<byte[]> hold();
  }

  public Responder(Supplier<Snapshot> snapshot, RoutingEngine engine, String edgeRegion, SubnetRegions subnets,
      int notReadyRcode, Supplier<RandomGenerator> random, DecisionListener decisions) {
    this(snapshot, engine, edgeRegion, subnets, notReadyRcode, random, decisions, null, PolicyListener.NONE);
  }

  /** @param forwarding null: names that would be forwarded get SERVFAIL */
  public Responder(Supplier<Snapshot> snapshot, RoutingEngine engine, String edgeRegion, SubnetRegions subnets,
      int notReadyRcode, Supplier<RandomGenerator> random, DecisionListener decisions, Forwarding forwarding,
      PolicyListener policies) {
    this(snapshot, engine, edgeRegion, subnets, notReadyRcode, random, decisions, forwarding, policies, null);
  }

  /** @param signing the keys and signatures of the signed zones (R-DNSSEC-1); null: signs nothing */
  public Responder(Supplier<Snapshot> snapshot, RoutingEngine engine, String edgeRegion, SubnetRegions subnets,
      int notReadyRcode, Supplier<RandomGenerator> random, DecisionListener decisions, Forwarding forwarding,
      PolicyListener policies, OnlineSigning signing) {
    this.signing = signing;
    this.snapshot = snapshot;
    this.engine = engine;
    this.edgeRegion = edgeRegion;
    this.notReadyRcode = notReadyRcode;
    this.random = random;
    this.decisions = decisions;
    this.zones = new ZoneAnswer(engine, edgeRegion, subnets, random, decisions, signing);
    this.forwarding = forwarding;
    this.policies = policies;
  }

  /** Told of every routing decision, for metrics and health-check logging (R-DNSHC-6). */
  public interface DecisionListener {
    void decided(Name name, int type, String sourceRegion, String clientSubnet, RecordSetEntry entry, Decision decision);

    /**
     * The decision of the dry run beside {@code entry} for the same query, never answered (R-OP-5);
     * {@code differs} when its answer is not the one given, drawn with the same random numbers.
     */
    default void dryRun(Name name, int type, String sourceRegion, String clientSubnet, RecordSetEntry entry,
        Decision dryRun, boolean differs) {}

    DecisionListener NONE = (name, type, region, subnet, entry, decision) -> { };
  }

  /**
   * Answers and waits for a forwarded reply: for TCP, whose connection thread may wait, and tests.
   *
   * @return the response bytes, or null when the packet must be dropped (too short to answer,
   *     or itself a response)
   */
  public byte[] reply(byte[] packet, InetAddress client, boolean tcp) {
    CompletableFuture<byte[]> later = new CompletableFuture<>();
    byte[] now = reply(packet, client, tcp, () -> later::complete);
    if (now != LATER) {
      return now;
    }
    try {
      return later.get(forwarding.budgetMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException e) {
      return null; // the forwarder always answers within its budget; this is only a backstop
    }
  }

  /**
   * @return the response bytes; null when the packet must be dropped (too short to answer, or
   *     itself a response); or {@link #LATER} when {@code later} will get them
   */
  public byte[] reply(byte[] packet, InetAddress client, boolean tcp, Later later) {
    Snapshot current = snapshot.get();
    // The client's policies, found once: the fast path's test and the full path both need them.
    Access access = current.policies().isEmpty() ? null : current.policies().access(client);
    if (access == null || current.policies().leaveToZones(access, () -> FastPath.questionName(packet))) {
      byte[] fast = FastPath.reply(packet, client, tcp, current, engine, edgeRegion, random.get(), decisions,
          signing);
      if (fast != null) {
        return fast;
      }
    }
    return fullReply(packet, client, tcp, later, current, access);
  }

  /** Every query through dnsjava's message model; the fast path's fallback, and its reference. */
  byte[] fullReply(byte[] packet, InetAddress client, boolean tcp) {
    return fullReply(packet, client, tcp, () -> reply -> { }, snapshot.get(), null);
  }

  /**
   * @param current the snapshot the query is answered from, one for the whole query
   * @param access the client's policies in it, or null when not found yet
   */
  private byte[] fullReply(byte[] packet, InetAddress client, boolean tcp, Later later, Snapshot current,
      Access found) {
    long started = System.nanoTime();
    Message query;
    try {
      query = new Message(packet);
    } catch (IOException | RuntimeException e) {
      return formErr(packet);
    }
    Header header = query.getHeader();
    if (header.getFlag(Flags.QR)) {
      return null;
    }
    if (header.getOpcode() != Opcode.QUERY) {
      return error(query, Rcode.NOTIMP);
    }
    Record question = query.getQuestion();
    if (question == null || query.getSection(Section.QUESTION).size() != 1 || misplacedOpt(query)) {
      return error(query, Rcode.FORMERR);
    }
    if (question.getDClass() != DClass.IN && question.getDClass() != DClass.ANY) {
      return error(query, Rcode.REFUSED); // CHAOS (version.bind) and HESIOD: no such zones here
    }
    OPTRecord opt = query.getOPT();
    if (opt != null && opt.getVersion() > 0) {
      return error(query, Rcode.BADVERS);
    }
    if (!current.ready()) {
      return error(query, notReadyRcode);
    }
    Access access = found != null ? found : current.policies().access(client);
    Route route = current.route(access, question.getName());
    if (route instanceof Route.ByRule byRule) { // R-RP-1: before any zone
      RuleEntry rule = byRule.rule();
      policies.ruleApplied(rule);
      return logged(access, query, PolicyAnswer.of(query, rule, opt, maxSize(opt, tcp)), tcp, rule.source(), started);
    }
    if (route instanceof Route.ByZone byZone) {
      Zone zone = byZone.zone();
      return logged(access, query, zones.answer(query, zone, opt, maxSize(opt, tcp)), tcp, "zone:" + zone.config().getName(),
          started);
    }
    // R-SP-1: a forwarding zone's names go to its targets; names outside the zones, to the server policy's
    if (route instanceof Route.Refused || forwarding != null && !forwarding.allow(client)) {
      policies.refused(route instanceof Route.Refused ? "no_policy" : "rate_limited");
      return logged(access, query, error(query, Rcode.REFUSED), tcp, "refused", started);
    }
    List<InetSocketAddress> targets = forwarding == null ? List.of()
        : forwarding.others(((Route.Forwarded) route).targets());
    if (targets.isEmpty()) { // no forwarder, or the only upstream named is this edge itself
      return logged(access, query, error(query, Rcode.SERVFAIL), tcp, "servfail", started);
    }
    int max = maxSize(opt, tcp);
    Consumer<byte[]> send = later.hold();
    forwarding.forwarder().forward(packet, PolicyAnswer.questionEnd(packet), targets, (reply, from) -> send.accept(
        reply == null ? logged(access, query, error(query, Rcode.SERVFAIL), tcp, "servfail", started)
            : logged(access, query, PolicyAnswer.fit(reply, max), tcp, "forwarded:" + from.getAddress().getHostAddress()
                + ":" + from.getPort(), started)));
    return LATER;
  }

  /** Tells the query log of a query whose server policy logs queries (R-SP-1); returns the reply. */
  private byte[] logged(Access access, Message query, byte[] reply, boolean tcp, String source, long started) {
    if (access.serverPolicy() != null && access.serverPolicy().logging()) {
      policies.answered(access, query, reply, tcp, source, started);
    }
    return reply;
  }

  /** RFC 6891 6.1.1: at most one OPT, in the additional section, owned by the root. */
  private static boolean misplacedOpt(Message query) {
    int opts = 0;
    for (int section : new int[] {Section.ANSWER, Section.AUTHORITY, Section.ADDITIONAL}) {
      for (Record r : query.getSection(section)) {
        if (r.getType() == Type.OPT
            && (section != Section.ADDITIONAL || !r.getName().equals(Name.root) || ++opts > 1)) {
          return true;
        }
      }
    }
    return false;
  }

  static int maxSize(OPTRecord opt, boolean tcp) {
    if (tcp) {
      return 65535;
    }
    return opt == null ? 512 : Math.max(512, Math.min(opt.getPayloadSize(), EDNS_PAYLOAD));
  }

  static Message response(Message query, int rcode) {
    Message response = new Message(query.getHeader().getID());
    Header h = response.getHeader();
    h.setFlag(Flags.QR);
    if (query.getHeader().getFlag(Flags.RD)) {
      h.setFlag(Flags.RD);
    }
    h.setOpcode(query.getHeader().getOpcode());
    h.setRcode(rcode);
    Record question = query.getQuestion();
    if (question != null) {
      response.addRecord(question, Section.QUESTION);
    }
    return response;
  }

  private static byte[] error(Message query, int rcode) {
    Message response = response(query, rcode & 0xF);
    if (rcode > 0xF || query.getOPT() != null) {
      // Extended rcodes (BADVERS) live in the OPT record (RFC 6891).
      response.addRecord(new OPTRecord(EDNS_PAYLOAD, rcode >>> 4, 0, 0), Section.ADDITIONAL);
    }
    return response.toWire(512);
  }

  /** A malformed query: FORMERR with its id when its header is readable, else drop it. */
  private static byte[] formErr(byte[] packet) {
    if (packet.length < Header.LENGTH || (packet[2] & 0x80) != 0) {
      return null;
    }
    Message response = new Message(((packet[0] & 0xff) << 8) | (packet[1] & 0xff));
    response.getHeader().setFlag(Flags.QR);
    response.getHeader().setRcode(Rcode.FORMERR);
    return response.toWire();
  }
}
