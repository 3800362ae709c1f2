package io.healthmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

class KafkaAccessTest {
  @Test
  void grantsEachUseItsOperationsAndNothingElse_whenTurnedIntoAcls() {
    KafkaAccess access = KafkaAccess.of("apply").reading(List.of("config.managed-zone"))
        .writing(List.of("config.resource-record-set")).joining("audit").usingTransactionalIdsStartingWith("healthctl-apply-");
    List<String> acls = access.bindings("User:ops").stream().map(KafkaAccessTest::describe).toList();
    assertThat(acls).containsExactly(
        "TOPIC LITERAL config.managed-zone READ", "TOPIC LITERAL config.managed-zone DESCRIBE",
        "TOPIC LITERAL config.resource-record-set WRITE", "TOPIC LITERAL config.resource-record-set DESCRIBE",
        "GROUP LITERAL audit READ",
        "TRANSACTIONAL_ID PREFIXED healthctl-apply- WRITE", "TRANSACTIONAL_ID PREFIXED healthctl-apply- DESCRIBE");
    assertThat(access.bindings("User:ops")).allSatisfy(b -> {
      assertThat(b.entry().principal()).isEqualTo("User:ops");
      assertThat(b.entry().host()).isEqualTo("*");
      assertThat(b.entry().permissionType()).isEqualTo(AclPermissionType.ALLOW);
    });
  }

  @Test
  void grantsNothing_whenNothingIsUsed() {
    KafkaAccess idle = KafkaAccess.of("idle");
    assertThat(idle.bindings("User:x")).isEmpty();
    assertThat(idle.describe()).isEqualTo("uses nothing in Kafka");
  }

  @Test
  void saysWhatItUses_inOneLine() {
    assertThat(KafkaAccess.of("apply").reading(List.of("a")).writing(List.of("b", "c"))
        .usingTransactionalIdsStartingWith("tx-").describe())
        .isEqualTo("reads [a]; writes [b, c]; uses transactional ids starting [tx-]");
  }

  @Test
  void grantsWhatKafkaStreamsDoesWithItsOwnTopics_whenATopicPrefixIsOwned() {
    KafkaAccess streams = KafkaAccess.of("topology").owningTopicsStartingWith("app-").creating("_schemas")
        .onCluster(AclOperation.DESCRIBE_CONFIGS);
    assertThat(streams.bindings("User:t").stream().map(KafkaAccessTest::describe).toList()).containsExactly(
        "TOPIC LITERAL _schemas CREATE",
        "TOPIC PREFIXED app- CREATE", "TOPIC PREFIXED app- READ", "TOPIC PREFIXED app- WRITE",
        "TOPIC PREFIXED app- DESCRIBE", "TOPIC PREFIXED app- DESCRIBE_CONFIGS", "TOPIC PREFIXED app- DELETE",
        "CLUSTER LITERAL kafka-cluster DESCRIBE_CONFIGS");
    assertThat(streams.describe()).isEqualTo(
        "creates [_schemas]; owns topics starting [app-]; on the cluster [DESCRIBE_CONFIGS]");
  }

  @Test
  void namesATopicOnce_whenItIsAddedTwice() {
    KafkaAccess access = KafkaAccess.of("x").reading(List.of("a", "b")).reading(List.of("a")).writing(List.of("a"));
    assertThat(access.reads()).containsExactly("a", "b");
    assertThat(access.topics()).containsExactly("a", "b");
    assertThat(access.bindings("User:x").stream().map(KafkaAccessTest::describe).toList()).containsExactly(
        "TOPIC LITERAL a READ", "TOPIC LITERAL a DESCRIBE", "TOPIC LITERAL b READ", "TOPIC LITERAL b DESCRIBE",
        "TOPIC LITERAL a WRITE");
  }

  private static String describe(AclBinding b) {
    ResourceType type = b.pattern().resourceType();
    PatternType pattern = b.pattern().patternType();
    AclOperation operation = b.entry().operation();
    return type + " " + pattern + " " + b.pattern().name() + " " + operation;
  }
}
