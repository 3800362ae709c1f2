package io.healthmesh.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.schemas.InMemorySchemaRegistryClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.Test;

/**
 * Every internal topic and store has a name of its own, so that changing the topology's shape
 * never renames a changelog or repartition topic under a running deployment.
 */
class TopologyNamingTest {
  @Test
  void aTopologyIsRefused_whenAnInternalTopicWouldGetAGeneratedName() {
    org.apache.kafka.streams.StreamsBuilder builder = new org.apache.kafka.streams.StreamsBuilder(
        HealthTopology.topologyConfig(StreamsSettings.from(Harness.props())));
    builder.stream("in").selectKey((k, v) -> v).groupByKey().count();

    org.assertj.core.api.Assertions.assertThatThrownBy(builder::build)
        .hasMessageContaining("repartition topic(s) has not been named").hasMessageContaining("state store(s) has not been named");
  }

  @Test
  void everyInternalTopicAndStore_isNamedExplicitly() {
    // HealthTopology.build asks Kafka Streams to refuse generated names; this shows what it built.
    Topology topology = HealthTopology.build(StreamsSettings.from(Harness.props()), new InMemorySchemaRegistryClient(),
        new SimpleMeterRegistry(), 4);
    String described = topology.describe().toString();
    assertThat(described).contains("probes-moved-repartition", "aggregate-input-repartition")
        .doesNotContainPattern("KSTREAM-[A-Z]+-\\d+-repartition").doesNotContainPattern("KSTREAM-[A-Z]+-STATE-STORE");
  }
}
