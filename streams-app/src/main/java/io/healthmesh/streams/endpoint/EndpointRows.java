package io.healthmesh.streams.endpoint;

import io.healthmesh.config.BackendService;
import io.healthmesh.config.HealthCheckSpec;
import io.healthmesh.events.EntityKey;
import io.healthmesh.events.EntityKind;
import io.healthmesh.events.HealthState;
import io.healthmesh.internal.ExternalEndpointRef;
import io.healthmesh.internal.ServiceSnapshot;
import io.healthmesh.streams.rules.Thresholds;
import io.healthmesh.streams.store.KeyValueStores;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Endpoints as interactive queries see them: read from this instance's stores (never from the
 * processors' heap), each worded as its health-state record would say it now, with the
 * thresholds its configuration judges it by.
 */
public final class EndpointRows {

  /** Receives each endpoint found. */
  public interface Sink {
    void accept(EntityKey key, HealthState state, String thresholds);
  }

  private EndpointRows() {}

  /**
   * Every endpoint of {@code kind} (ENDPOINT or EXTERNAL_ENDPOINT) whose name starts with
   * {@code namePrefix} and passes {@code names}: the prefix narrows the scan to the groups that
   * can hold such names, so a question about one service reads that service's groups only.
   */
  public static void read(KafkaStreams streams, EntityKind kind, String namePrefix, Predicate<String> names, Sink out) {
    ReadOnlyKeyValueStore<String, EndpointTable.Group> groups = KeyValueStores.queryable(streams, PerServiceStores.ENDPOINTS);
    boolean external = kind == EntityKind.EXTERNAL_ENDPOINT;
    String scan = external ? "/" + namePrefix
        : namePrefix.contains("/") ? namePrefix.substring(0, namePrefix.indexOf('/')) + "#" : namePrefix;
    // Every service's groups without the external endpoints' ("/address"), which sort between
    // "/" and "0", before every service name: a status of all services decodes none of them.
    try (Judges judges = new Judges(streams, external && namePrefix.isEmpty());
        KeyValueIterator<String, EndpointTable.Group> it = scan.isEmpty() ? groups.range("0", null)
        : KeyValueStores.startingWith(groups, scan)) {
      while (it.hasNext()) {
        KeyValue<String, EndpointTable.Group> group = it.next();
        if (group.key.startsWith("/") != external) {
          continue;
        }
        String service = external ? "" : group.key.substring(0, group.key.lastIndexOf('#'));
        for (EndpointState s : group.value.members) {
          String name = external ? s.id : EndpointTable.key(service, s.id);
          if (names.test(name)) {
            BackendService config = external ? null : judges.service(service);
            String region = config == null ? "" : config.getRegion();
            String thresholds = external ? judges.external(s.id)
                : config == null || config.getHealthCheck() == null ? null : judges.words(config.getHealthCheck());
            out.accept(new EntityKey(kind, name), EndpointPublisher.state(s, region), thresholds);
          }
        }
      }
    }
  }


  /** The configuration that judges endpoints, read once per service. */
  private static final class Judges implements AutoCloseable {
    /** External endpoints looked up one by one before all of them are read at once. */
    private static final int ONE_BY_ONE = 64;
    private final ReadOnlyKeyValueStore<String, ServiceSnapshot> services;
    private final ReadOnlyKeyValueStore<String, ExternalEndpointRef> refs;
    private final Map<String, BackendService> seen = new HashMap<>();
    private final Map<HealthCheckSpec, String> worded = new ConcurrentHashMap<>();
    /**
     * Every external endpoint's thresholds, read beside the endpoints' groups when all of them
     * are asked for (the reading is most of such an answer); null otherwise.
     */
    private final CompletableFuture<Map<String, String>> early;
    private volatile boolean closed;
    /** Each external endpoint's thresholds once many are asked for; null before. */
    private Map<String, String> externals;
    private int lookups;

    Judges(KafkaStreams streams, boolean allExternals) {
      this.services = KeyValueStores.queryable(streams, PerServiceStores.SERVICES);
      this.refs = KeyValueStores.queryable(streams, PerServiceStores.EXTERNAL_REFS);
      this.early = allExternals ? CompletableFuture.supplyAsync(this::allExternals, r -> {
        Thread reader = new Thread(r, "status-external-refs");
        reader.setDaemon(true);
        reader.start();
      }) : null;
    }

    BackendService service(String name) {
      return seen.computeIfAbsent(name, n -> {
        ServiceSnapshot s = services.get(n);
        return s == null ? null : s.getConfig();
      });
    }

    /**
     * As the topology judges it ({@link Owners#of}): by the first record set that checks it. A
     * few are looked up by address; many (a status of every external endpoint) are read in one
     * pass over the references, which costs less than a range scan each.
     */
    String external(String address) {
      if (externals == null && ++lookups > ONE_BY_ONE) {
        externals = early == null ? allExternals() : join(early);
      }
      if (externals != null) {
        return externals.get(address);
      }
      try (KeyValueIterator<String, ExternalEndpointRef> it = KeyValueStores.startingWith(refs, address + "|")) {
        while (it.hasNext()) {
          ExternalEndpointRef ref = it.next().value;
          if (judges(ref)) {
            return words(ref.getHealthCheck());
          }
        }
      }
      return null;
    }

    private Map<String, String> allExternals() {
      // sized for every reference at once: growing by doubling to 200,000 was 7% of this read
      long references = Math.min(1 << 24, refs.approximateNumEntries());
      Map<String, String> all = new HashMap<>((int) (references * 4 / 3 + 1));
      try (KeyValueIterator<String, ExternalEndpointRef> it = refs.all()) {
        while (it.hasNext() && !closed) {
          KeyValue<String, ExternalEndpointRef> ref = it.next();
          if (judges(ref.value)) {
            all.putIfAbsent(ref.key.substring(0, ref.key.lastIndexOf('|')), words(ref.value.getHealthCheck()));
          }
        }
      }
      return all;
    }

    /** Whether a record set's use of an external endpoint says how to judge it: it still uses it, with a check. */
    private static boolean judges(ExternalEndpointRef ref) {
      return !ref.getRemoved() && ref.getHealthCheck() != null;
    }

    /** The reader's answer, or what stopped it (a rebalance moving the store) as thrown here. */
    private static Map<String, String> join(CompletableFuture<Map<String, String>> reading) {
      try {
        return reading.join();
      } catch (CompletionException e) {
        throw e.getCause() instanceof RuntimeException cause ? cause : e;
      }
    }

    /** A question that asked few stops the reader: its answer is no longer needed. */
    @Override
    public void close() {
      closed = true;
    }

    /** Thousands of endpoints share a handful of checks: each is worded once. */
    String words(HealthCheckSpec spec) {
      return worded.computeIfAbsent(spec, Thresholds::of);
    }
  }
}
