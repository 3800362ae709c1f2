package io.healthmesh.streams.endpoint;

import io.healthmesh.config.ForwardingRule;
import io.healthmesh.internal.ExternalEndpointRef;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.streams.codec.TopologySerdes;
import io.healthmesh.streams.store.CommitHook;
import io.healthmesh.streams.store.KeyValueStores;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;

/** The per-service stage's stores; their names are those of their changelog topics, so they never change. */
public final class PerServiceStores {
  public static final String ENDPOINTS = "endpoints";
  static final String COMMIT_HOOK = "endpoints-commit-hook";
  public static final String SERVICES = "services";
  static final String PROBE_CLOCK = "probe-clock";
  public static final String EXTERNAL_REFS = "external-endpoint-refs";
  static final String RULES = "service-forwarding-rules";
  /** The DNS-target health of load balancers (R-DNSHC-2/3), as last published. */
  public static final String PUBLISHED_TARGETS = "published-dns-targets";

  private PerServiceStores() {}

  public static void add(StreamsBuilder builder, TopologySerdes serdes, SchemaRegistryClient registry,
      boolean changelogs, EndpointWrites writes) {
    EndpointGroupSerde groups = new EndpointGroupSerde(registry);
    if (writes == EndpointWrites.AT_COMMIT) {
      // EndpointTable writes each changed group once per commit itself: no store cache.
      builder.addStateStore(KeyValueStores.inMemory(ENDPOINTS, changelogs, groups).withCachingDisabled());
      builder.addStateStore(CommitHook.builder(COMMIT_HOOK));
    } else {
      builder.addStateStore(KeyValueStores.inMemory(ENDPOINTS, changelogs, groups));
    }
    builder.addStateStore(KeyValueStores.inMemory(SERVICES, changelogs, serdes.serviceSnapshots()));
    builder.addStateStore(KeyValueStores.inMemory(PROBE_CLOCK, changelogs, Serdes.Long()));
    builder.addStateStore(KeyValueStores.inMemory(EXTERNAL_REFS, changelogs, serdes.store(ExternalEndpointRef.class)));
    builder.addStateStore(KeyValueStores.inMemory(RULES, changelogs, serdes.store(ForwardingRule.class)));
    builder.addStateStore(KeyValueStores.inMemory(PUBLISHED_TARGETS, changelogs, serdes.healthStates()));
  }

  /** The stores the stage's processor uses. */
  public static String[] names(EndpointWrites writes) {
    List<String> stores = new ArrayList<>(List.of(ENDPOINTS, SERVICES, PROBE_CLOCK, EXTERNAL_REFS, RULES, PUBLISHED_TARGETS));
    if (writes == EndpointWrites.AT_COMMIT) {
      stores.add(COMMIT_HOOK);
    }
    return stores.toArray(String[]::new);
  }
}
