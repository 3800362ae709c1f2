package io.healthmesh.streams.store;

import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;

/** A store held in this process's memory alone: never persistent, open from its task's start to its close. */
abstract class HeapStore implements StateStore {
  private final String name;
  private volatile boolean open;

  HeapStore(String name) {
    this.name = name;
  }

  /** Registers how the store is restored from its changelog, and opens it. */
  final void open(StateStoreContext context, StateStore root, StateRestoreCallback restore) {
    if (root != null) {
      context.register(root, restore);
    }
    open = true;
  }

  final void closed() {
    open = false;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final boolean persistent() {
    return false;
  }

  @Override
  public final boolean isOpen() {
    return open;
  }
}
