package io.healthmesh.streams.endpoint;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The endpoint states of one task: on the heap for the per-probe path, and in a changelogged store
 * for crash recovery. The store holds one entry per group of up to {@link #GROUP_SIZE} endpoints
 * of a service (by position in its configuration). A probe only marks its group changed; the
 * groups changed since the last commit are encoded and stored just before the next one
 * ({@link io.healthmesh.streams.store.CommitHook}), so a group gets one changelog record per commit however many probes
 * changed it, and a probe never encodes anything, however large its service.
 */
public final class EndpointTable {
  static final int GROUP_SIZE = 32;
  private static final long BUCKET_MILLIS = 1_000;
  private static final Comparator<EndpointState> BY_EXPIRY =
      Comparator.<EndpointState>comparingLong(s -> s.expiresAt).thenComparing(s -> s.key);

  /** A store entry: endpoints that are written together; {@code key} null when read detached from the store. */
  public static final class Group {
    final String key;
    final List<EndpointState> members = new ArrayList<>();
    boolean dirty;

    Group(String key) {
      this.key = key;
    }

    public List<EndpointState> members() {
      return Collections.unmodifiableList(members);
    }

    /** The service whose endpoints it holds; "" for an external endpoint. */
    String service() {
      return key.startsWith("/") ? "" : key.substring(0, key.lastIndexOf('#'));
    }
  }

  private final KeyValueStore<String, Group> store;
  /** Every change written at once (through the store's cache) instead of at the next commit. */
  private final boolean writeThrough;
  /** By service, then endpoint id; external endpoints under service "". Two small lookups beat one in a map of every endpoint. */
  private final Map<String, Map<String, EndpointState>> states = new HashMap<>();
  private final TreeMap<String, Group> groups = new TreeMap<>();
  private final List<Group> dirty = new ArrayList<>();
  /**
   * The stale index: endpoints by the second their expiry falls in. Derived from the states, so
   * not stored. Lazy: an endpoint is indexed once and moved only when its bucket comes due while
   * it was refreshed meanwhile, not on every result; appending to a bucket is cheaper than keeping
   * a sorted index.
   */
  private final TreeMap<Long, List<EndpointState>> expiries = new TreeMap<>();

  EndpointTable(ProcessorContext<?, ?> context, String storeName, EndpointWrites writes) {
    this.store = context.getStateStore(storeName);
    this.writeThrough = writes == EndpointWrites.THROUGH_CACHE;
    try (KeyValueIterator<String, Group> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, Group> kv = it.next();
        Group group = new Group(kv.key);
        groups.put(kv.key, group);
        for (EndpointState s : kv.value.members) {
          join(group.service(), group, s);
          schedule(s);
        }
      }
    }
  }

  /** {@code service} "" for an external endpoint; null when the endpoint has had no result. */
  EndpointState get(String service, String id) {
    Map<String, EndpointState> ofService = states.get(service);
    return ofService == null ? null : ofService.get(id);
  }

  /** A new state for an endpoint's first result; {@code ordinal} is its position in its service (unused for external ones). */
  EndpointState create(String service, String id, int ordinal) {
    String groupKey = service.isEmpty() ? "/" + id : groupKey(service, ordinal);
    EndpointState s = new EndpointState(id);
    join(service, groups.computeIfAbsent(groupKey, Group::new), s);
    return s;
  }

  /** Notes a change to {@code s}: its group is stored at the next commit ({@link #flush}), or now when written through. */
  void save(EndpointState s) {
    s.encoded = null;
    dirty(s.group);
    schedule(s);
    if (writeThrough) {
      flush();
    }
  }

  /**
   * Writes every group changed since the last flush: the store, and so its changelog, holds each
   * group as it is at the commit, once per commit however many probes changed it.
   */
  void flush() {
    for (Group group : dirty) {
      group.dirty = false;
      Group live = groups.get(group.key);
      if (live == group) {
        store.put(group.key, group);
      } else if (live == null) {
        store.delete(group.key); // emptied; a group made anew under its key writes itself
      }
    }
    dirty.clear();
  }

  /** Forgets an endpoint; returns its state, or null when it had none. */
  EndpointState remove(String service, String id) {
    Map<String, EndpointState> ofService = states.get(service);
    EndpointState s = ofService == null ? null : ofService.remove(id);
    if (s == null) {
      return null;
    }
    if (ofService.isEmpty()) {
      states.remove(service);
    }
    Group group = s.group;
    group.members.remove(s);
    s.group = null;
    write(group);
    if (writeThrough) {
      flush();
    }
    return s;
  }

  /** After a service's endpoints moved in its configuration: regroups them by their new positions. */
  void regroup(String service, ToIntFunction<String> ordinal) {
    List<Group> old = new ArrayList<>(groups.subMap(service + "#", service + "#" + Character.MAX_VALUE).values());
    for (Group group : old) {
      for (EndpointState s : List.copyOf(group.members)) {
        String target = groupKey(service, ordinal.applyAsInt(s.id));
        if (!target.equals(group.key)) {
          group.members.remove(s);
          Group next = groups.computeIfAbsent(target, Group::new);
          next.members.add(s);
          s.group = next;
          write(group);
          write(next);
        }
      }
    }
    if (writeThrough) {
      flush();
    }
  }

  /** States whose expiry is at or before {@code now}, by expiry then key, so a replay emits them in the same order. */
  List<EndpointState> dueAt(long now) {
    List<EndpointState> due = new ArrayList<>();
    List<EndpointState> refreshed = new ArrayList<>();
    while (!expiries.isEmpty() && expiries.firstKey() * BUCKET_MILLIS <= now) {
      Map.Entry<Long, List<EndpointState>> bucket = expiries.pollFirstEntry();
      for (EndpointState s : bucket.getValue()) {
        if (s.group == null || s.indexedBucket != bucket.getKey()) {
          continue; // removed, or indexed again in an earlier bucket
        }
        s.indexedBucket = EndpointState.NOT_INDEXED;
        if (s.expiresAt > now) {
          refreshed.add(s);
        } else if (s.expiresAt != 0) {
          due.add(s);
        }
      }
    }
    refreshed.forEach(this::schedule);
    due.sort(BY_EXPIRY);
    return due;
  }

  private void join(String service, Group group, EndpointState s) {
    s.key = key(service, s.id);
    group.members.add(s);
    s.group = group;
    states.computeIfAbsent(service, k -> new HashMap<>()).put(s.id, s);
  }

  private void schedule(EndpointState s) {
    long bucket = s.expiresAt / BUCKET_MILLIS;
    if (s.expiresAt != 0 && (s.indexedBucket == EndpointState.NOT_INDEXED || bucket < s.indexedBucket)) {
      s.indexedBucket = bucket;
      expiries.computeIfAbsent(bucket, b -> new ArrayList<>()).add(s);
    }
  }

  private void write(Group group) {
    if (group.members.isEmpty()) {
      groups.remove(group.key);
    }
    dirty(group);
  }

  private void dirty(Group group) {
    if (!group.dirty) {
      group.dirty = true;
      dirty.add(group);
    }
  }

  /** {@code service/endpoint}; an external endpoint has no service: {@code /address}. */
  static String key(String service, String endpoint) {
    return service + "/" + endpoint;
  }

  private static String groupKey(String service, int ordinal) {
    return service + "#" + ordinal / GROUP_SIZE;
  }
}
