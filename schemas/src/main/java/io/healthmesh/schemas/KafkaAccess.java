package io.healthmesh.schemas;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What a component does in Kafka, as a secured cluster's ACLs must allow it: the topics it reads
 * and writes, the consumer groups it joins and the transactional ids it uses. Each component
 * states its own, next to the code that uses them, and {@code healthctl acls} prints them: the
 * ACLs an operator grants are the ones the code needs, no more.
 *
 * @param component what the principal runs, as {@code healthctl acls} names it
 * @param reads topics read (Read and Describe)
 * @param writes topics written (Write and Describe)
 * @param groups consumer groups joined (Read), by exact name
 * @param transactionalIdPrefixes prefixes of the transactional ids used (Write and Describe)
 */
public record KafkaAccess(String component, List<String> reads, List<String> writes, List<String> groups,
    List<String> transactionalIdPrefixes) {

  public KafkaAccess {
    reads = List.copyOf(reads);
    writes = List.copyOf(writes);
    groups = List.copyOf(groups);
    transactionalIdPrefixes = List.copyOf(transactionalIdPrefixes);
  }

  /** In words, for a message that says what a refused component needs: "reads [a, b]; writes [c]". */
  public String describe() {
    List<String> parts = new ArrayList<>();
    if (!reads.isEmpty()) {
      parts.add("reads " + reads);
    }
    if (!writes.isEmpty()) {
      parts.add("writes " + writes);
    }
    if (!groups.isEmpty()) {
      parts.add("joins groups " + groups);
    }
    if (!transactionalIdPrefixes.isEmpty()) {
      parts.add("uses transactional ids starting " + transactionalIdPrefixes);
    }
    return parts.isEmpty() ? "uses nothing in Kafka" : String.join("; ", parts);
  }

  /** The ACLs that let {@code principal} (e.g. {@code User:edge-1}) do this, from any host. */
  public List<AclBinding> bindings(String principal) {
    List<AclBinding> acls = new ArrayList<>();
    for (String topic : reads) {
      allow(acls, principal, ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.READ, AclOperation.DESCRIBE);
    }
    for (String topic : writes) {
      allow(acls, principal, ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.WRITE, AclOperation.DESCRIBE);
    }
    for (String group : groups) {
      allow(acls, principal, ResourceType.GROUP, group, PatternType.LITERAL, AclOperation.READ);
    }
    for (String prefix : transactionalIdPrefixes) {
      allow(acls, principal, ResourceType.TRANSACTIONAL_ID, prefix, PatternType.PREFIXED, AclOperation.WRITE,
          AclOperation.DESCRIBE);
    }
    return acls;
  }

  private static void allow(List<AclBinding> acls, String principal, ResourceType type, String name,
      PatternType pattern, AclOperation... operations) {
    for (AclOperation operation : operations) {
      acls.add(new AclBinding(new ResourcePattern(type, name, pattern),
          new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW)));
    }
  }
}
