package io.healthmesh.edge.answer;

import io.healthmesh.config.ResponsePolicyRuleBehavior;
import io.healthmesh.edge.policy.RuleEntry;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.xbill.DNS.Message;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;

/** The replies the policies give (R-RP-1, R-SP-1): a rule's own, and a forwarded one fitted to the client. */
final class PolicyAnswer {
  private static final int HEADER = 12;

  private PolicyAnswer() {}

  /**
   * A rule's answer: its local data of the asked type (or its CNAME), NODATA when it has none of
   * that type, or the block it says. Not authoritative: it overrides what the zones hold.
   */
  static byte[] of(Message query, RuleEntry rule, OPTRecord opt, int maxSize) {
    Message response = Responder.response(query, Rcode.NOERROR);
    Record question = query.getQuestion();
    if (rule.behavior() == ResponsePolicyRuleBehavior.nxdomain) {
      response.getHeader().setRcode(Rcode.NXDOMAIN);
    } else if (rule.behavior() != ResponsePolicyRuleBehavior.nodata) {
      for (Record r : rule.answer(question.getName(), question.getType())) {
        response.addRecord(r, Section.ANSWER);
      }
    }
    if (opt != null) {
      response.addRecord(new OPTRecord(Responder.EDNS_PAYLOAD, 0, 0, 0, List.of()), Section.ADDITIONAL);
    }
    return response.toWire(maxSize);
  }

  /**
   * An upstream's reply as the client may take it: as it came when it fits, else cut to whole
   * record sets with TC set, so the client asks again over TCP.
   */
  static byte[] fit(byte[] reply, int maxSize) {
    if (reply.length <= maxSize) {
      return reply;
    }
    try {
      return new Message(reply).toWire(maxSize);
    } catch (IOException e) {
      // unreadable, so it cannot be cut: a header alone with TC, which sends the client to TCP
      byte[] header = Arrays.copyOf(reply, HEADER);
      header[2] |= 0x02;
      for (int i = 4; i < HEADER; i++) {
        header[i] = 0;
      }
      return header;
    }
  }

  /** Offset just after the question of a query that dnsjava has read (so it is well formed). */
  static int questionEnd(byte[] packet) {
    int at = HEADER;
    while (true) {
      int len = packet[at] & 0xFF;
      if (len == 0) {
        return at + 1 + 4;
      }
      if ((len & 0xC0) == 0xC0) {
        return at + 2 + 4;
      }
      at += len + 1;
    }
  }
}
