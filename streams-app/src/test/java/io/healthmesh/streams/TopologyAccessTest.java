package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.schemas.InMemorySchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import io.healthmesh.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

/**
 * The topology's stated Kafka access ({@link HealthStreamsApp#kafkaAccess}) is what it builds:
 * a topic added to or removed from the topology without its ACLs fails here, not in production
 * (R-SEC-1).
 */
class TopologyAccessTest {
  private static final Set<String> PROJECT_TOPICS = Topics.all().stream().map(Topic::name).collect(Collectors.toSet());

  @Test
  void statesEveryTopicItReadsAndWrites_whenComparedWithTheBuiltTopology() {
    TopologyDescription described = HealthTopology.build(StreamsSettings.from(Harness.props()),
        new InMemorySchemaRegistryClient(), new SimpleMeterRegistry(), 4).describe();
    Set<String> sources = new TreeSet<>();
    Set<String> sinks = new TreeSet<>();
    for (TopologyDescription.Subtopology sub : described.subtopologies()) {
      for (TopologyDescription.Node node : sub.nodes()) {
        if (node instanceof TopologyDescription.Source source) {
          sources.addAll(source.topicSet());
        } else if (node instanceof TopologyDescription.Sink sink) {
          sinks.add(sink.topic());
        }
      }
    }
    // Every topic that is not the project's is Kafka Streams' own, named under the application id.
    assertThat(sources).filteredOn(t -> !PROJECT_TOPICS.contains(t)).allMatch(t -> t.endsWith("-repartition"));
    assertThat(sinks).filteredOn(t -> !PROJECT_TOPICS.contains(t)).allMatch(t -> t.endsWith("-repartition"));
    assertThat(sources).filteredOn(PROJECT_TOPICS::contains).containsExactlyInAnyOrderElementsOf(HealthTopology.INPUTS);
    assertThat(sinks).filteredOn(PROJECT_TOPICS::contains).containsExactlyInAnyOrderElementsOf(HealthTopology.OUTPUTS);
  }

  @Test
  void ownsItsInternalTopicsGroupAndTransactions_underItsApplicationId() {
    var access = HealthStreamsApp.kafkaAccess("hm-prod");
    assertThat(access.ownedTopicPrefixes()).containsExactly("hm-prod-");
    assertThat(access.groups()).containsExactly("hm-prod");
    assertThat(access.transactionalIdPrefixes()).containsExactly("hm-prod-");
    assertThat(access.reads()).containsExactlyElementsOf(HealthTopology.INPUTS);
    assertThat(access.writes()).containsExactlyElementsOf(HealthTopology.OUTPUTS);
  }
}
