package io.healthmesh.streams.store;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * One block cache and one write-buffer budget for every persistent store of the process. The
 * topology has a few dozen stores (each of some twenty per task), nearly all small; with
 * RocksDB's defaults each could take its own 50 MB cache and 48 MB of memtables off the heap.
 * The processors read from heap mirrors, so the stores are written and restored, hardly read:
 * a small shared cache is enough.
 */
public final class BoundedRocksDb implements RocksDBConfigSetter {
  private static final long CACHE_BYTES = 64L << 20;
  private static final long WRITE_BUFFER_BYTES = 32L << 20;
  // Shared by every store of the process, as Kafka Streams' memory-management guide does it.
  private static final Cache CACHE = new LRUCache(CACHE_BYTES, -1, false, 0.5);
  private static final WriteBufferManager WRITE_BUFFERS = new WriteBufferManager(WRITE_BUFFER_BYTES, CACHE);

  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
    table.setBlockCache(CACHE);
    table.setCacheIndexAndFilterBlocks(true);
    options.setWriteBufferManager(WRITE_BUFFERS);
    options.setTableFormatConfig(table);
  }

  @Override
  public void close(String storeName, Options options) {
    // the cache and the budget are shared: never closed by one store
  }
}
