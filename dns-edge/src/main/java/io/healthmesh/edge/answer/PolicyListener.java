package io.healthmesh.edge.answer;

import io.healthmesh.edge.policy.Access;
import io.healthmesh.edge.policy.RuleEntry;
import org.xbill.DNS.Message;

/** Told what the policies did with a query (R-RP-1, R-SP-1), for metrics and the query log. */
public interface PolicyListener {
  PolicyListener NONE = new PolicyListener() {};

  /** A response-policy rule answered (not one that bypasses). */
  default void ruleApplied(RuleEntry rule) {}

  /**
   * A query that nothing here answers and that was not forwarded.
   *
   * @param reason {@code no_policy} (no server policy lets this client forward) or {@code rate_limited}
   */
  default void refused(String reason) {}

  /**
   * A query of a client whose server policy logs queries, once its reply is known.
   *
   * @param source what answered: {@code zone:<name>}, {@code response-policy:<policy>/<rule>},
   *     {@code forwarded:<address>}, {@code refused}, or {@code servfail}
   */
  default void answered(Access access, Message query, byte[] reply, boolean tcp, String source, long startedNanos) {}
}
