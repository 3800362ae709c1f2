package io.healthmesh.registry;

import io.healthmesh.schemas.KafkaAccess;
import io.healthmesh.schemas.KafkaRefusal;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A running schema registry: the store rebuilt from Kafka, the HTTP API in front of it. Runs
 * in-process (demo, tests) or from {@link SchemaRegistryMain}.
 */
public final class SchemaRegistry implements AutoCloseable {
  private final SchemaLog log;
  private final RegistryHttpServer http;
  private final String url;

  private SchemaRegistry(SchemaLog log, RegistryHttpServer http, String host, boolean https) {
    this.log = log;
    this.http = http;
    this.url = (https ? "https://" : "http://") + host + ":" + http.port();
  }

  /**
   * What a registry does in Kafka: creates its schemas topic when missing, reads it whole and
   * writes it in transactions under one id per topic, so that one instance at a time writes.
   */
  public static KafkaAccess kafkaAccess(String topic) {
    return KafkaAccess.of("registry").creating(topic).reading(List.of(topic)).writing(List.of(topic))
        .usingTransactionalIdsStartingWith(SchemaLog.TRANSACTIONAL_ID_PREFIX + topic);
  }

  /** Reads the schemas topic to its end, then serves; returns once requests are answered. */
  public static SchemaRegistry start(RegistrySettings settings) {
    try {
      return startOrFail(settings);
    } catch (RuntimeException e) {
      throw KafkaRefusal.explained(e, kafkaAccess(settings.topic()), settings.kafkaClientProperties());
    }
  }

  private static SchemaRegistry startOrFail(RegistrySettings settings) {
    SchemaStore store = new SchemaStore(CompatibilityLevel.parse(settings.defaultCompatibility()));
    SchemaLog log = new SchemaLog(settings, store);
    try {
      log.start();
      RegistryHttpServer http = new RegistryHttpServer(new RegistryService(store, log), settings.host(), settings.port(),
          settings.users(), settings.tls());
      http.start();
      return new SchemaRegistry(log, http, settings.host(), settings.tls() != null);
    } catch (IOException e) {
      log.close();
      throw new UncheckedIOException("cannot listen on " + settings.host() + ":" + settings.port(), e);
    } catch (RuntimeException e) {
      log.close();
      throw e;
    }
  }

  /** Base URL, e.g. {@code http://127.0.0.1:8081}. */
  public String url() {
    return url;
  }

  public int port() {
    return http.port();
  }

  /** False once the schemas topic can no longer be read; the registry then only serves what it has. */
  public boolean healthy() {
    return log.failure().isEmpty();
  }

  /** Requests, errors and health as meters (healthmesh_registry_*). */
  public void bindTo(MeterRegistry meters) {
    FunctionCounter.builder("healthmesh.registry.requests", http.requests,
        AtomicLong::get).description("REST requests answered").register(meters);
    FunctionCounter.builder("healthmesh.registry.errors", http.errors,
        AtomicLong::get).description("REST requests answered with an error").register(meters);
    Gauge.builder("healthmesh.registry.healthy", this, r -> r.healthy() ? 1 : 0)
        .description("1 while the schemas topic can be read").register(meters);
  }

  public long requests() {
    return http.requests.get();
  }

  public long errors() {
    return http.errors.get();
  }

  @Override
  public void close() {
    http.close();
    log.close();
  }
}
