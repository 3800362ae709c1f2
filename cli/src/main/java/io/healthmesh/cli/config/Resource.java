package io.healthmesh.cli.config;

import org.apache.avro.specific.SpecificRecord;

/**
 * A configuration resource.
 *
 * @param value the resource, or null for a deletion
 * @param origin where it was declared ({@code file:document}), or where it is stored
 */
public record Resource(ResourceKind kind, String key, SpecificRecord value, String origin) {

  public Ref ref() {
    return new Ref(kind, key);
  }

  /** A resource's identity. */
  public record Ref(ResourceKind kind, String key) {
    @Override
    public String toString() {
      return kind.kindName() + "/" + key;
    }
  }
}
