package io.healthmesh.tests;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The modules' layering, as the README's module table states it: each module uses only those
 * above it, the topology and the edge never use each other, and the shared module none of them.
 */
@AnalyzeClasses(packages = "io.healthmesh", importOptions = ImportOption.DoNotIncludeTests.class)
class ModuleLayeringTest {
  private static final String[] SHARED = {"io.healthmesh.schemas..", "io.healthmesh.net..", "io.healthmesh.rules..",
      "io.healthmesh.settings..", "io.healthmesh.observability..", "io.healthmesh.config..", "io.healthmesh.events..",
      "io.healthmesh.internal.."};

  @ArchTest
  static final ArchRule sharedModuleUsesNoOtherModule = noClasses().that().resideInAnyPackage(SHARED)
      .should().dependOnClassesThat().resideInAnyPackage("io.healthmesh.kafka.embedded..", "io.healthmesh.registry..",
          "io.healthmesh.streams..", "io.healthmesh.edge..", "io.healthmesh.xds..", "io.healthmesh.haproxy..",
          "io.healthmesh.cli..");

  @ArchTest
  static final ArchRule registryUsesOnlyTheSharedModule = noClasses().that().resideInAPackage("io.healthmesh.registry..")
      .should().dependOnClassesThat().resideInAnyPackage("io.healthmesh.streams..", "io.healthmesh.edge..",
          "io.healthmesh.cli..");

  @ArchTest
  static final ArchRule topologyNeverUsesTheEdgeOrTheCli = noClasses().that().resideInAPackage("io.healthmesh.streams..")
      .should().dependOnClassesThat().resideInAnyPackage("io.healthmesh.edge..", "io.healthmesh.xds..",
          "io.healthmesh.cli..");

  @ArchTest
  static final ArchRule edgeNeverUsesTheTopologyOrTheCli = noClasses().that().resideInAPackage("io.healthmesh.edge..")
      .should().dependOnClassesThat().resideInAnyPackage("io.healthmesh.streams..", "io.healthmesh.xds..",
          "io.healthmesh.cli..");

  /** The xDS server reads what the topology publishes, as the edge does, and uses neither. */
  @ArchTest
  static final ArchRule xdsServerUsesOnlyTheSharedModule = noClasses().that().resideInAPackage("io.healthmesh.xds..")
      .should().dependOnClassesThat().resideInAnyPackage("io.healthmesh.streams..", "io.healthmesh.edge..",
          "io.healthmesh.haproxy..", "io.healthmesh.cli..", "io.healthmesh.registry..", "io.healthmesh.kafka.embedded..");

  /** The HAProxy adapter reads the decisions the topology publishes and uses no other module. */
  @ArchTest
  static final ArchRule haproxyAdapterUsesOnlyTheSharedModule = noClasses().that().resideInAPackage("io.healthmesh.haproxy..")
      .should().dependOnClassesThat().resideInAnyPackage("io.healthmesh.streams..", "io.healthmesh.edge..",
          "io.healthmesh.xds..", "io.healthmesh.cli..", "io.healthmesh.registry..", "io.healthmesh.kafka.embedded..");

  // Inside the topology: each stage is a room that sees only the shared rooms beneath it (codec,
  // output, store, rules), never another stage or the wiring (io.healthmesh.streams itself).
  private static final String[] TOPOLOGY_SHARED = {"io.healthmesh.streams.codec..", "io.healthmesh.streams.output..",
      "io.healthmesh.streams.store..", "io.healthmesh.streams.rules.."};

  @ArchTest
  static final ArchRule ingestUsesNoOtherStage = stage("ingest", "endpoint", "aggregate");

  @ArchTest
  static final ArchRule perServiceStageUsesNoOtherStage = stage("endpoint", "ingest", "aggregate");

  @ArchTest
  static final ArchRule aggregateStageUsesNoOtherStage = stage("aggregate", "ingest", "endpoint");

  @ArchTest
  static final ArchRule sharedRoomsUseNoStage = noClasses().that().resideInAnyPackage(TOPOLOGY_SHARED)
      .should().dependOnClassesThat().resideInAnyPackage("io.healthmesh.streams", "io.healthmesh.streams.ingest..",
          "io.healthmesh.streams.endpoint..", "io.healthmesh.streams.aggregate..");

  @ArchTest
  static final ArchRule onlyTheTopologysRulesAreSharedWithOtherModules = noClasses()
      .that().resideOutsideOfPackage("io.healthmesh.streams..")
      .should().dependOnClassesThat().resideInAnyPackage("io.healthmesh.streams.ingest..", "io.healthmesh.streams.endpoint..",
          "io.healthmesh.streams.aggregate..", "io.healthmesh.streams.codec..", "io.healthmesh.streams.output..",
          "io.healthmesh.streams.store..");

  private static ArchRule stage(String stage, String... others) {
    String[] forbidden = new String[others.length + 1];
    forbidden[0] = "io.healthmesh.streams";
    for (int i = 0; i < others.length; i++) {
      forbidden[i + 1] = "io.healthmesh.streams." + others[i] + "..";
    }
    return noClasses().that().resideInAPackage("io.healthmesh.streams." + stage + "..")
        .should().dependOnClassesThat().resideInAnyPackage(forbidden);
  }
}
