package io.healthmesh.schemas;

import org.apache.avro.Schema;

/** The part of the Confluent Schema Registry API that the serdes and tools use. */
public interface SchemaRegistryClient {

  /** Registers {@code schema} under {@code subject} (or finds it already there) and returns its id. */
  int register(String subject, Schema schema);

  /** Returns the id of {@code schema} under {@code subject}; fails with 40401/40403 if it is not registered. */
  int idOf(String subject, Schema schema);

  /** Returns the schema with this global id; fails with 40403 if there is none. */
  Schema byId(int id);

  /** Returns the latest version registered under {@code subject}. */
  SchemaVersion latest(String subject);

  /** Whether {@code schema} may be registered next under {@code subject} per its compatibility level. */
  boolean isCompatible(String subject, Schema schema);

  /** The compatibility level of {@code subject}, or the global one when {@code subject} is null. */
  String compatibility(String subject);

  /** Sets the compatibility level of {@code subject}, or the global one when {@code subject} is null. */
  void setCompatibility(String subject, String level);

  /** One registered version of a subject. */
  record SchemaVersion(String subject, int version, int id, Schema schema) {}
}
