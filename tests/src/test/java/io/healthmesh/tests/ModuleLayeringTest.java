package io.healthmesh.tests;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameEndingWith;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The modules' layering, as the README's module table states it: each module uses only those
 * above it, the topology and the edge never use each other, and the shared module none of them.
 */
@AnalyzeClasses(packages = "io.healthmesh",
    importOptions = {ImportOption.DoNotIncludeTests.class, ModuleLayeringTest.NoTestJars.class})
class ModuleLayeringTest {
  /** Other modules' tests reach this one as test jars, which DoNotIncludeTests does not recognise. */
  static final class NoTestJars implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("-tests.jar") && !location.contains("/test-classes/");
    }
  }

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

  /** healthctl's commands talk to a cluster; only its launchers (demo, serve, xds) start components. */
  @ArchTest
  static final ArchRule onlyTheCliLaunchersStartComponents = noClasses().that().resideInAPackage("io.healthmesh.cli..")
      .and().resideOutsideOfPackage("io.healthmesh.cli.launch..")
      .should().dependOnClassesThat(resideInAnyPackage("io.healthmesh.kafka.embedded..")
          .or(simpleNameEndingWith("Main").and(resideOutsideOfPackage("io.healthmesh.cli.."))));

  // The edge's rooms (package-info of each): other modules use only its wiring, its rules, its
  // explanations and its DNSSEC key files; inside, each room sees only the rooms beneath it.
  private static final String EDGE = "io.healthmesh.edge";

  private static String[] edge(String... rooms) {
    String[] packages = new String[rooms.length];
    for (int i = 0; i < rooms.length; i++) {
      packages[i] = EDGE + "." + rooms[i] + "..";
    }
    return packages;
  }

  @ArchTest
  static final ArchRule otherModulesUseOnlyTheEdgesPublishedApi = noClasses().that().resideOutsideOfPackage(EDGE + "..")
      .should().dependOnClassesThat().resideInAnyPackage(edge("state", "follow", "answer", "server", "log", "status",
          "routing", "policy", "forward", "collect"));

  @ArchTest
  static final ArchRule edgeRoomsNeverUseTheWiring = noClasses().that().resideInAnyPackage(edge("state", "follow",
          "answer", "server", "log", "status", "routing", "policy", "rules", "forward", "collect", "dnssec", "explain"))
      .should().dependOnClassesThat().resideInAPackage(EDGE);

  @ArchTest
  static final ArchRule onlyTheFollowerTheLogsAndTheStatusTalkToKafka = noClasses().that().resideInAnyPackage(edge(
          "state", "answer", "server", "routing", "policy", "rules", "forward", "collect", "dnssec", "explain"))
      .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..");

  @ArchTest
  static final ArchRule edgeTransportKnowsOnlyTheResponder = noClasses().that().resideInAnyPackage(edge("server"))
      .should().dependOnClassesThat().resideInAnyPackage(edge("state", "follow", "routing", "policy", "dnssec", "log",
          "status", "explain", "forward", "rules"));

  @ArchTest
  static final ArchRule answeringKnowsNoTransportNorFollower = noClasses().that().resideInAnyPackage(edge("answer"))
      .should().dependOnClassesThat().resideInAnyPackage(edge("server", "follow", "log", "status", "explain"));

  @ArchTest
  static final ArchRule edgeModelKnowsNothingAboveIt = noClasses().that().resideInAnyPackage(edge("state"))
      .should().dependOnClassesThat().resideInAnyPackage(edge("follow", "answer", "server", "log", "status", "explain",
          "dnssec"));

  @ArchTest
  static final ArchRule routingAndPoliciesKnowNoModel = noClasses().that().resideInAnyPackage(edge("routing", "policy",
          "rules", "forward", "collect"))
      .should().dependOnClassesThat().resideInAnyPackage(edge("state", "follow", "answer", "server", "log", "status",
          "explain", "dnssec"));

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
