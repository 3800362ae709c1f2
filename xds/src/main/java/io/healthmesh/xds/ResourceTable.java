package io.healthmesh.xds;

import com.google.common.hash.Hashing;
import com.google.protobuf.Message;
import io.envoyproxy.controlplane.cache.ResourceVersionResolver;
import io.envoyproxy.controlplane.cache.SnapshotResources;
import io.envoyproxy.controlplane.cache.VersionedResource;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One type's resources in one snapshot, each versioned by a hash of its content (R-XDS-5): a
 * client that asks for some resources is answered only when one of those changed, a delta client
 * gets only the changed ones, and any replica of the xDS server gives the same versions to the
 * same content, so a client that moves to another replica is sent nothing again. Immutable; a
 * change makes a new table that shares nothing mutable with the old one.
 */
final class ResourceTable<T extends Message> extends SnapshotResources<T> {
  private final Map<String, VersionedResource<T>> versioned;
  private final Map<String, T> resources;
  /** XOR of every entry's hash: kept up to date per change, independent of order. */
  private final long typeHash;

  private ResourceTable(Map<String, VersionedResource<T>> versioned, Map<String, T> resources, long typeHash) {
    this.versioned = Collections.unmodifiableMap(versioned);
    this.resources = Collections.unmodifiableMap(resources);
    this.typeHash = typeHash;
  }

  static <T extends Message> ResourceTable<T> empty() {
    return new ResourceTable<>(new HashMap<>(), new HashMap<>(), 0);
  }

  /** A table with {@code changes} applied (a null value removes); this one when nothing differs. */
  ResourceTable<T> with(Map<String, T> changes) {
    Map<String, VersionedResource<T>> nextVersioned = null;
    Map<String, T> nextResources = null;
    long hash = typeHash;
    for (Map.Entry<String, T> change : changes.entrySet()) {
      String name = change.getKey();
      VersionedResource<T> old = versioned.get(name);
      VersionedResource<T> next = change.getValue() == null ? null
          : VersionedResource.create(change.getValue(), contentVersion(change.getValue()));
      if (old == null ? next == null : next != null && old.version().equals(next.version())) {
        continue;
      }
      if (nextVersioned == null) {
        nextVersioned = new HashMap<>(versioned);
        nextResources = new HashMap<>(resources);
      }
      if (old != null) {
        hash ^= entryHash(name, old.version());
        nextVersioned.remove(name);
        nextResources.remove(name);
      }
      if (next != null) {
        hash ^= entryHash(name, next.version());
        nextVersioned.put(name, next);
        nextResources.put(name, next.resource());
      }
    }
    return nextVersioned == null ? this : new ResourceTable<>(nextVersioned, nextResources, hash);
  }

  int size() {
    return versioned.size();
  }

  @Override
  public Map<String, VersionedResource<T>> versionedResources() {
    return versioned;
  }

  @Override
  public Map<String, T> resources() {
    return resources;
  }

  /**
   * A watch on some names is answered when one of their versions differs from what the client
   * holds; the whole type's version (no names: wildcard and delta) changes with any resource.
   */
  @Override
  public ResourceVersionResolver resourceVersionResolver() {
    return names -> {
      if (names.isEmpty()) {
        return Long.toHexString(typeHash);
      }
      if (names.size() == 1) {
        return versionOf(names.get(0));
      }
      StringBuilder joined = new StringBuilder();
      names.stream().sorted().forEach(n -> joined.append(n).append('=').append(versionOf(n)).append(';'));
      return Hashing.murmur3_128().hashUnencodedChars(joined).toString().substring(0, 16);
    };
  }

  private String versionOf(String name) {
    VersionedResource<T> r = versioned.get(name);
    return r == null ? "absent" : r.version();
  }

  static String contentVersion(Message resource) {
    return Hashing.murmur3_128().hashBytes(resource.toByteArray()).toString().substring(0, 16);
  }

  private static long entryHash(String name, String version) {
    return Hashing.murmur3_128().hashUnencodedChars(name + '\n' + version).asLong();
  }

  List<String> names() {
    return List.copyOf(versioned.keySet());
  }
}
