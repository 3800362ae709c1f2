package io.healthmesh.cli;

import io.healthmesh.cli.config.ResourceKind;
import io.healthmesh.cli.probe.Prober;
import io.healthmesh.schemas.KafkaAccess;
import io.healthmesh.schemas.Topics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What each kind of {@code healthctl} user does in Kafka, by the commands it runs; each reads
 * without a consumer group. {@code healthctl acls} prints them, and a refused command names the
 * one it runs as.
 */
final class CliAccess {
  static final String PROBER = "prober";
  static final String READ = "healthctl-read";
  static final String APPLY = "healthctl-apply";
  static final String AUDIT = "audit";
  /** The transactional ids of {@code apply} and {@code delete}: one fresh id per run. */
  static final String APPLY_TRANSACTIONS = "healthctl-apply-";

  /** The top-level commands of each user; commands not named here need an administrator. */
  private static final Map<String, Supplier<KafkaAccess>> BY_COMMAND = Map.ofEntries(
      Map.entry("probe", CliAccess::prober), Map.entry("get", CliAccess::reader), Map.entry("status", CliAccess::reader),
      Map.entry("diff", CliAccess::reader),
      Map.entry("apply", CliAccess::applier), Map.entry("validate", CliAccess::applier),
      Map.entry("delete", CliAccess::applier), Map.entry("audit", CliAccess::auditor),
      Map.entry("explain", CliAccess::auditor), Map.entry("replay", CliAccess::auditor));

  private CliAccess() {}

  static List<String> configTopics() {
    return Arrays.stream(ResourceKind.values()).map(k -> k.topic().name()).toList();
  }

  /**
   * The configuration as in force ({@code ConfigTopics.read}): its topics, the records the
   * topology rejected and the versions the edges keep in force.
   */
  private static List<String> configInForce(List<String> topics) {
    List<String> all = new ArrayList<>(topics);
    all.add(Topics.CONFIG_DLQ.name());
    all.add(Topics.CONFIG_IN_FORCE.name());
    return all;
  }

  /** {@code probe run} and {@code probe publish}: the targets' configuration in, probe results out. */
  static KafkaAccess prober() {
    return KafkaAccess.of(PROBER).reading(configInForce(Prober.KINDS.stream().map(k -> k.topic().name()).toList()))
        .writing(List.of(Topics.PROBE_RESULTS.name()));
  }

  /** {@code get}, {@code status} and {@code diff}: configuration in force, health, and what edges and xDS servers report. */
  static KafkaAccess reader() {
    return KafkaAccess.of(READ).reading(configInForce(configTopics())).reading(List.of(Topics.HEALTH_STATE.name(),
        Topics.EDGE_STATUS.name(), Topics.XDS_STATUS.name()));
  }

  /** {@code apply}, {@code validate} and {@code delete}: the configuration in force, written in one transaction. */
  static KafkaAccess applier() {
    return KafkaAccess.of(APPLY).reading(configInForce(configTopics())).writing(configTopics())
        .usingTransactionalIdsStartingWith(APPLY_TRANSACTIONS);
  }

  /** {@code audit}, {@code explain} and {@code replay}: every retained record of configuration, probes and decisions. */
  static KafkaAccess auditor() {
    return KafkaAccess.of(AUDIT).reading(configTopics()).reading(List.of(Topics.HEALTH_STATE.name(),
        Topics.HEALTH_TRANSITIONS.name(), Topics.PROBE_RESULTS.name(), Topics.DNS_DECISIONS.name(),
        Topics.DNS_QUERY_LOG.name()));
  }

  /** The access of the user that runs a top-level command, or null when the command needs an administrator. */
  static KafkaAccess forCommand(String command) {
    Supplier<KafkaAccess> user = BY_COMMAND.get(command);
    return user == null ? null : user.get();
  }
}
