package io.healthmesh.schemas;

/**
 * The registry stayed unavailable for as long as the caller may wait. Deliberately not a
 * {@link RegistryException} nor a Kafka {@code SerializationException}: no deserializer or
 * dead-letter handler may take it for bad data; it travels up to whoever can retry the work
 * (a Kafka Streams thread restarting from its last commit, a command failing with exit 1).
 */
public class RegistryUnavailableException extends RuntimeException {
  public RegistryUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
