package io.healthmesh.streams.store;

import java.util.Arrays;
import java.util.Optional;

/** Where the topology's stores keep their data between restarts. */
public enum StoreKind {
  /**
   * On the heap, restored from the changelogs whenever a task starts: the fastest to run, and a
   * restart reads every changelog whole.
   */
  IN_MEMORY("in-memory"),
  /**
   * RocksDB on local disk with transactional semantics (KIP-892): what a commit did not cover
   * never reaches the disk, so even after kill -9 under exactly-once the local state is kept and
   * a restart reads only the changelog records written since, not the whole of them.
   */
  PERSISTENT("persistent");

  public final String setting;

  StoreKind(String setting) {
    this.setting = setting;
  }

  public static Optional<StoreKind> of(String setting) {
    return Arrays.stream(values()).filter(k -> k.setting.equals(setting)).findFirst();
  }
}
