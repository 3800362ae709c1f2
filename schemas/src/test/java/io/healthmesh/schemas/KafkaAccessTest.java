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
    KafkaAccess access = new KafkaAccess("apply", List.of("config.managed-zone"), List.of("config.resource-record-set"),
        List.of("audit"), List.of("healthctl-apply-"));
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
    KafkaAccess idle = new KafkaAccess("idle", List.of(), List.of(), List.of(), List.of());
    assertThat(idle.bindings("User:x")).isEmpty();
    assertThat(idle.describe()).isEqualTo("uses nothing in Kafka");
  }

  @Test
  void saysWhatItUses_inOneLine() {
    assertThat(new KafkaAccess("apply", List.of("a"), List.of("b", "c"), List.of(), List.of("tx-")).describe())
        .isEqualTo("reads [a]; writes [b, c]; uses transactional ids starting [tx-]");
  }

  private static String describe(AclBinding b) {
    ResourceType type = b.pattern().resourceType();
    PatternType pattern = b.pattern().patternType();
    AclOperation operation = b.entry().operation();
    return type + " " + pattern + " " + b.pattern().name() + " " + operation;
  }
}
