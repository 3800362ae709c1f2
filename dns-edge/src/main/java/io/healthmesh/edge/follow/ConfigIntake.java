package io.healthmesh.edge.follow;

import io.healthmesh.edge.state.EdgeState;
import io.healthmesh.schemas.AvroDeserializer;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.Topic;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serializer;

/**
 * One configuration topic the edge follows, bound to how its values are read, how a version kept
 * in force is written back (to {@code config-in-force}), and what in the state takes them; so the
 * follower looks a topic up instead of dispatching on its name.
 */
final class ConfigIntake<T extends SpecificRecord> {
  /** What takes one record of the topic: null when taken, else why not. */
  interface Take<T> {
    EdgeState.Rejection take(EdgeState state, String key, T value, long offset);
  }

  private final AvroDeserializer<T> reader;
  private final Serializer<T> writer;
  private final Take<T> take;

  ConfigIntake(Topic<String, T> topic, SchemaRegistryClient registry, Take<T> take) {
    this.reader = new AvroDeserializer<>(registry, topic.valueType());
    this.writer = topic.valueSerde(registry).serializer();
    this.take = take;
  }

  /** Hands one record's value (null: deleted) to the state. */
  EdgeState.Rejection take(EdgeState state, String topic, String key, byte[] value, long offset) {
    return take.take(state, key, value == null ? null : reader.deserialize(topic, value), offset);
  }

  /** A version the state keeps in force, as its topic holds it. */
  @SuppressWarnings("unchecked")
  byte[] encode(String topic, Object inForce) {
    return writer.serialize(topic, (T) inForce);
  }
}
