package io.healthmesh.schemas;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What a component does in Kafka, as a secured cluster's ACLs must allow it: the topics it reads,
 * writes or creates, the topics it owns by name prefix (Kafka Streams' internal topics), the
 * consumer groups it joins, the transactional ids it uses and its cluster operations. Each
 * component states its own, next to the code that uses them, and {@code healthctl acls} prints
 * them: the ACLs an operator grants are the ones the code needs, no more.
 *
 * @param component what the principal runs, as {@code healthctl acls} names it
 * @param reads topics read (Read and Describe)
 * @param writes topics written (Write and Describe)
 * @param creates topics created when missing (Create): the component's own, such as the registry's
 * @param ownedTopicPrefixes prefixes of topics the component creates, uses and purges itself
 *     (Create, Read, Write, Describe, DescribeConfigs, Delete)
 * @param groups consumer groups joined (Read), by exact name
 * @param transactionalIdPrefixes prefixes of the transactional ids used (Write and Describe)
 * @param clusterOperations operations on the cluster resource
 */
public record KafkaAccess(String component, List<String> reads, List<String> writes, List<String> creates,
    List<String> ownedTopicPrefixes, List<String> groups, List<String> transactionalIdPrefixes,
    Set<AclOperation> clusterOperations) {
  private static final AclOperation[] OWNED = {AclOperation.CREATE, AclOperation.READ, AclOperation.WRITE,
      AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS, AclOperation.DELETE};

  public KafkaAccess {
    reads = List.copyOf(new LinkedHashSet<>(reads));
    writes = List.copyOf(new LinkedHashSet<>(writes));
    creates = List.copyOf(new LinkedHashSet<>(creates));
    ownedTopicPrefixes = List.copyOf(new LinkedHashSet<>(ownedTopicPrefixes));
    groups = List.copyOf(new LinkedHashSet<>(groups));
    transactionalIdPrefixes = List.copyOf(new LinkedHashSet<>(transactionalIdPrefixes));
    clusterOperations = Set.copyOf(clusterOperations);
  }

  /** A component that uses nothing yet; add what it uses with the {@code with...} methods. */
  public static KafkaAccess of(String component) {
    return new KafkaAccess(component, List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), Set.of());
  }

  public KafkaAccess reading(Collection<String> topics) {
    return new KafkaAccess(component, concat(reads, topics), writes, creates, ownedTopicPrefixes, groups,
        transactionalIdPrefixes, clusterOperations);
  }

  public KafkaAccess writing(Collection<String> topics) {
    return new KafkaAccess(component, reads, concat(writes, topics), creates, ownedTopicPrefixes, groups,
        transactionalIdPrefixes, clusterOperations);
  }

  public KafkaAccess creating(String topic) {
    return new KafkaAccess(component, reads, writes, concat(creates, List.of(topic)), ownedTopicPrefixes, groups,
        transactionalIdPrefixes, clusterOperations);
  }

  public KafkaAccess owningTopicsStartingWith(String prefix) {
    return new KafkaAccess(component, reads, writes, creates, concat(ownedTopicPrefixes, List.of(prefix)), groups,
        transactionalIdPrefixes, clusterOperations);
  }

  public KafkaAccess joining(String group) {
    return new KafkaAccess(component, reads, writes, creates, ownedTopicPrefixes, concat(groups, List.of(group)),
        transactionalIdPrefixes, clusterOperations);
  }

  public KafkaAccess usingTransactionalIdsStartingWith(String prefix) {
    return new KafkaAccess(component, reads, writes, creates, ownedTopicPrefixes, groups,
        concat(transactionalIdPrefixes, List.of(prefix)), clusterOperations);
  }

  public KafkaAccess onCluster(AclOperation operation) {
    Set<AclOperation> operations = new LinkedHashSet<>(clusterOperations);
    operations.add(operation);
    return new KafkaAccess(component, reads, writes, creates, ownedTopicPrefixes, groups, transactionalIdPrefixes,
        operations);
  }

  /** Every topic named here by its whole name (read, written or created). */
  public Set<String> topics() {
    Set<String> topics = new LinkedHashSet<>(reads);
    topics.addAll(writes);
    topics.addAll(creates);
    return topics;
  }

  /** In words, for a message that says what a refused component needs: "reads [a, b]; writes [c]". */
  public String describe() {
    List<String> parts = new ArrayList<>();
    add(parts, "reads ", reads);
    add(parts, "writes ", writes);
    add(parts, "creates ", creates);
    add(parts, "owns topics starting ", ownedTopicPrefixes);
    add(parts, "joins groups ", groups);
    add(parts, "uses transactional ids starting ", transactionalIdPrefixes);
    add(parts, "on the cluster ", clusterOperations.stream().map(AclOperation::toString).sorted().toList());
    return parts.isEmpty() ? "uses nothing in Kafka" : String.join("; ", parts);
  }

  private static void add(List<String> parts, String verb, Collection<String> what) {
    if (!what.isEmpty()) {
      parts.add(verb + what);
    }
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
    for (String topic : creates) {
      allow(acls, principal, ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.CREATE);
    }
    for (String prefix : ownedTopicPrefixes) {
      allow(acls, principal, ResourceType.TOPIC, prefix, PatternType.PREFIXED, OWNED);
    }
    for (String group : groups) {
      allow(acls, principal, ResourceType.GROUP, group, PatternType.LITERAL, AclOperation.READ);
    }
    for (String prefix : transactionalIdPrefixes) {
      allow(acls, principal, ResourceType.TRANSACTIONAL_ID, prefix, PatternType.PREFIXED, AclOperation.WRITE,
          AclOperation.DESCRIBE);
    }
    clusterOperations.stream().sorted().forEach(operation ->
        allow(acls, principal, ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, operation));
    return List.copyOf(new LinkedHashSet<>(acls)); // a topic both read and written is described once
  }

  private static void allow(List<AclBinding> acls, String principal, ResourceType type, String name,
      PatternType pattern, AclOperation... operations) {
    for (AclOperation operation : operations) {
      acls.add(new AclBinding(new ResourcePattern(type, name, pattern),
          new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW)));
    }
  }

  private static List<String> concat(List<String> a, Collection<String> b) {
    return Stream.concat(a.stream(), b.stream()).toList();
  }
}
