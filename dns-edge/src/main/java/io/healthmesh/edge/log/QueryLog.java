package io.healthmesh.edge.log;

import io.healthmesh.edge.answer.PolicyListener;
import io.healthmesh.edge.policy.Access;
import io.healthmesh.edge.policy.RuleEntry;
import io.healthmesh.events.DnsQueryLog;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Counts what the policies did (R-RP-1, R-SP-1) and writes the queries of clients whose server
 * policy logs them to {@code dns-query-log}, sampled as the policy says. The producer is made on
 * the first logged query, so an edge without logging policies holds none.
 */
public final class QueryLog implements PolicyListener, AutoCloseable {
  private final LogOrigin origin;
  private final SchemaRegistryClient registry;
  private final MeterRegistry meters;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Counter logged;
  private volatile BoundedSender<DnsQueryLog> sender;
  private volatile boolean closed;

  public QueryLog(LogOrigin origin, SchemaRegistryClient registry, MeterRegistry meters) {
    this.origin = origin;
    this.registry = registry;
    this.meters = meters;
    this.logged = Counter.builder("healthmesh.dns.queries.logged").description("queries written to dns-query-log")
        .register(meters);
  }

  @Override
  public void ruleApplied(RuleEntry rule) {
    counters.computeIfAbsent("rp|" + rule.policy() + "|" + rule.behavior(), k -> Counter.builder(
        "healthmesh.dns.response.policy.answers").tag("policy", rule.policy()).tag("behavior", rule.behavior().name())
        .description("queries a response-policy rule answered before the zones").register(meters)).increment();
  }

  @Override
  public void refused(String reason) {
    counters.computeIfAbsent("refused|" + reason, k -> Counter.builder("healthmesh.dns.forward.refused")
        .tag("reason", reason).description("queries for names outside the zones that were not forwarded, answered REFUSED")
        .register(meters)).increment();
  }

  @Override
  public void answered(Access access, Message query, byte[] reply, boolean tcp, String source, long startedNanos) {
    if (closed || ThreadLocalRandom.current().nextDouble() >= access.serverPolicy().sampleRate()) {
      return;
    }
    long micros = (System.nanoTime() - startedNanos) / 1000;
    Record question = query.getQuestion();
    String rcode = "DROPPED";
    List<String> answer = new ArrayList<>();
    if (reply != null) {
      try {
        Message response = new Message(reply);
        rcode = Rcode.string(response.getRcode());
        for (Record r : response.getSection(Section.ANSWER)) {
          answer.add(r.getName() + " " + Type.string(r.getType()) + " " + r.rdataToString());
        }
      } catch (IOException e) {
        rcode = "UNREADABLE";
      }
    }
    String client = access.client().getHostAddress();
    DnsQueryLog record = DnsQueryLog.newBuilder().setTime(Instant.now()).setEdge(origin.edge())
        .setServerPolicy(access.serverPolicy().name()).setClient(client).setProtocol(tcp ? "tcp" : "udp")
        .setQueryName(question.getName().toString()).setQueryType(Type.string(question.getType())).setRcode(rcode)
        .setAnswer(answer).setLatencyMicros(micros).setSource(source).build();
    sender().offer(client, record);
    logged.increment();
  }

  private BoundedSender<DnsQueryLog> sender() {
    BoundedSender<DnsQueryLog> s = sender;
    if (s == null) {
      synchronized (this) {
        if (sender == null) {
          sender = new BoundedSender<>(Topics.DNS_QUERY_LOG, origin.kafka(), registry,
              meters.counter("healthmesh.dns.query.log.dropped"));
        }
        s = sender;
      }
    }
    return s;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (sender != null) {
      sender.close();
    }
  }
}
