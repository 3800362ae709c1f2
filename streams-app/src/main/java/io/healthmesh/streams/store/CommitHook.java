package io.healthmesh.streams.store;

import java.util.Map;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * Lets a processor write its state once per commit instead of once per record. Kafka Streams has
 * no public commit callback, but before it commits a task it flushes every store cache of the
 * task and then its producer, in the same transaction as the input offsets; this store has no
 * data of its own, only that flush, which runs the processor's callback. So whatever the callback
 * writes to a changelogged store is committed exactly with the records that led to it.
 *
 * <p>{@code CachedStateStore} is a Kafka Streams internal interface: pinned with the Kafka
 * version, and {@code HealthTopologyIT} (SIGKILL mid-stream, restore from the changelogs) fails
 * if the flush stops being called.
 */
public final class CommitHook extends HeapStore implements CachedStateStore<Object, Object> {
  private Runnable beforeCommit = () -> {};

  private CommitHook(String name) {
    super(name);
  }

  /** {@code action} runs before each commit of this store's task, and before it is closed or moved. */
  public void beforeCommit(Runnable action) {
    this.beforeCommit = action;
  }

  @Override
  public void flushCache() {
    beforeCommit.run();
  }

  @Override
  public boolean setFlushListener(CacheFlushListener<Object, Object> listener, boolean sendOldValues) {
    return false;
  }

  @Override
  public void clearCache() {}

  @Override
  public void init(StateStoreContext context, StateStore root) {
    open(context, root, (key, value) -> {});
  }

  @Override
  public void close() {
    closed();
  }

  public static StoreBuilder<CommitHook> builder(String name) {
    return new StoreBuilder<>() {
      @Override
      public StoreBuilder<CommitHook> withCachingEnabled() {
        return this;
      }

      @Override
      public StoreBuilder<CommitHook> withCachingDisabled() {
        return this;
      }

      @Override
      public StoreBuilder<CommitHook> withLoggingEnabled(Map<String, String> config) {
        return this;
      }

      @Override
      public StoreBuilder<CommitHook> withLoggingDisabled() {
        return this;
      }

      @Override
      public CommitHook build() {
        return new CommitHook(name);
      }

      @Override
      public Map<String, String> logConfig() {
        return Map.of();
      }

      @Override
      public boolean loggingEnabled() {
        return false;
      }

      @Override
      public String name() {
        return name;
      }
    };
  }
}
