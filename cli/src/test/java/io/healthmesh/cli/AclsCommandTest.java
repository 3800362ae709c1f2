package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.junit.jupiter.api.Test;

/** What {@code healthctl acls} prints (R-SEC-1). */
class AclsCommandTest {

  @Test
  void printsOneKafkaAclsCommandPerResourceKindAndOperations_forAComponent() {
    Cli.Run run = Cli.execute(null, null, "acls", "--component", "prober", "--principal", "prober=User:probe-eu",
        "--bootstrap-servers", "kafka-1:9093", "--command-config", "/etc/admin.properties");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out().lines().toList()).containsExactly(
        "# prober as User:probe-eu: reads [config.backend-service, config.resource-record-set, config-dlq,"
            + " config-in-force]; writes [probe-results]",
        "kafka-acls --bootstrap-server kafka-1:9093 --command-config /etc/admin.properties --add --allow-principal"
            + " User:probe-eu --operation Read --operation Describe --topic config.backend-service --topic"
            + " config.resource-record-set --topic config-dlq --topic config-in-force",
        "kafka-acls --bootstrap-server kafka-1:9093 --command-config /etc/admin.properties --add --allow-principal"
            + " User:probe-eu --operation Write --operation Describe --topic probe-results",
        "");
  }

  @Test
  void namesTheTopologysResourcesAfterItsApplicationId_andEachEdgeAfterItsName() {
    Cli.Run run = Cli.execute(null, null, "acls", "--component", "topology,edge", "--application-id", "hm-prod",
        "--edge", "edge-use1,edge-euw1");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("--allow-principal User:hm-prod --operation Read --group hm-prod")
        .contains("--resource-pattern-type prefixed --topic hm-prod-")
        .contains("--resource-pattern-type prefixed --transactional-id hm-prod-")
        .contains("--allow-principal User:hm-prod --operation DescribeConfigs --cluster")
        .contains("# edge as User:edge-use1").contains("# edge as User:edge-euw1")
        .doesNotContain("# prober");
    assertThat(run.out()).as("no edge joins a group or writes configuration").doesNotContainPattern(
        "User:edge-use1 .*--group").doesNotContainPattern("User:edge-use1 --operation Write.*config\\.managed-zone");
  }

  @Test
  void refusesAnUnknownComponentOrPrincipal_withExit2() {
    Cli.Run unknown = Cli.execute(null, null, "acls", "--component", "dashboard");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("unknown component 'dashboard'").contains("healthctl-apply");
    Cli.Run principal = Cli.execute(null, null, "acls", "--principal", "grafana=User:g");
    assertThat(principal.exit()).isEqualTo(2);
    assertThat(principal.err()).contains("--principal grafana=User:g");
  }

  @Test
  void spellsOperationsAsKafkaAclsDoes() {
    assertThat(List.of(AclOperation.DESCRIBE_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.READ).stream()
        .map(AclsCommand::operationName).toList()).containsExactly("DescribeConfigs", "IdempotentWrite", "Read");
  }
}
