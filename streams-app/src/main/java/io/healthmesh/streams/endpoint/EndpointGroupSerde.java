package io.healthmesh.streams.endpoint;

import io.healthmesh.events.HealthStatus;
import io.healthmesh.internal.EndpointDamping;
import io.healthmesh.internal.EndpointProberState;
import io.healthmesh.internal.EndpointStateEntry;
import io.healthmesh.internal.EndpointStates;
import io.healthmesh.schemas.AvroDeserializer;
import io.healthmesh.schemas.AvroSerializer;
import io.healthmesh.schemas.RegistryConfig;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.WireFormat;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.SchemaNormalization;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Endpoint groups as {@code EndpointStates} in the Confluent wire format. Written by hand because
 * a group is encoded on every probe and Avro's reflective writer costs several times more; read
 * with the ordinary deserializer, which also proves that the two agree. The hand encoder writes
 * the layout whose parsing fingerprint is {@link #WRITTEN_FOR}; should the schema change without
 * it, groups are written by Avro instead, as the probe decoder falls back for other layouts.
 */
final class EndpointGroupSerde implements Serde<EndpointTable.Group> {
  /** Parsing fingerprint of the {@code EndpointStates} layout that {@link #encode} writes. */
  static final long WRITTEN_FOR = 6817546289849619261L;
  static final boolean BY_HAND = SchemaNormalization.parsingFingerprint64(EndpointStates.SCHEMA$) == WRITTEN_FOR;
  private static final byte[] EMPTY = new byte[0];
  private final SchemaRegistryClient registry;
  private final AvroDeserializer<EndpointStates> reader;
  private final AvroSerializer<EndpointStates> writer;
  private final Map<String, Integer> ids = new ConcurrentHashMap<>();

  EndpointGroupSerde(SchemaRegistryClient registry) {
    this.registry = registry;
    this.reader = new AvroDeserializer<>(registry, EndpointStates.class);
    this.writer = new AvroSerializer<>(registry, false);
  }

  @Override
  public Serializer<EndpointTable.Group> serializer() {
    return (topic, group) -> group == null ? null
        : BY_HAND ? encode(schemaId(topic), group) : writer.serialize(topic, states(group));
  }

  @Override
  public Deserializer<EndpointTable.Group> deserializer() {
    return (topic, bytes) -> bytes == null ? null : decode(topic, bytes);
  }

  private int schemaId(String topic) {
    return ids.computeIfAbsent(topic, t -> registry.register(RegistryConfig.subject(t, false), EndpointStates.SCHEMA$));
  }

  /**
   * A probe changes one member of its group, so each member keeps its own encoding until it
   * changes ({@link EndpointState#encoded}) and the group is their concatenation.
   */
  static byte[] encode(int schemaId, EndpointTable.Group group) {
    int size = 0;
    for (EndpointState s : group.members) {
      if (s.encoded == null) {
        s.encoded = encode(s);
      }
      size += s.encoded.length;
    }
    Writer out = new Writer(WireFormat.HEADER_SIZE + 10 + size + 1); // header, count, members, end
    out.pos = WireFormat.HEADER_SIZE;
    if (!group.members.isEmpty()) {
      out.writeLong(group.members.size()); // one array block, then the end marker below
      for (EndpointState s : group.members) {
        System.arraycopy(s.encoded, 0, out.buf, out.pos, s.encoded.length);
        out.pos += s.encoded.length;
      }
    }
    out.writeLong(0);
    byte[] bytes = Arrays.copyOf(out.buf, out.pos);
    WireFormat.writeHeader(bytes, schemaId);
    return bytes;
  }

  private static byte[] encode(EndpointState s) {
    EndpointState.Damping d = s.damping;
    byte[] prober = utf8(s.prober);
    byte[][] probers = s.probers == null ? new byte[0][] : Arrays.stream(s.probers).map(v -> utf8(v.prober)).toArray(byte[][]::new);
    int probersSize = Arrays.stream(probers).mapToInt(b -> 10 + b.length + 5 * 10).sum();
    Writer out = new Writer(10 + s.idUtf8.length + 7 * 10 + 1 + (d == null ? 0 : 7 * 10 + 2 + 10 * d.failures.length)
        + 10 + prober.length + 20 + probersSize + 20);
    out.writeBytes(s.idUtf8);
    out.writeLong(s.status.ordinal());
    out.writeLong(s.since);
    out.writeLong(s.successes);
    out.writeLong(s.failures);
    out.writeLong(s.lastEventTime);
    out.writeLong(s.expiresAt);
    out.writeLong(s.version);
    if (d == null) {
      out.writeLong(0); // union branch: null
    } else {
      out.writeLong(1);
      if (d.pending == null) {
        out.writeLong(0);
      } else {
        out.writeLong(1);
        out.writeLong(d.pending.ordinal());
      }
      out.writeLong(d.pendingSince);
      if (d.failures.length > 0) {
        out.writeLong(d.failures.length);
        for (long t : d.failures) {
          out.writeLong(t);
        }
      }
      out.writeLong(0);
      out.writeLong(d.suppressedUntil);
      out.writeLong(d.suppressions);
      out.writeLong(d.lastSuppressionEnd);
    }
    out.writeBytes(prober);
    if (probers.length > 0) {
      out.writeLong(probers.length);
      for (int i = 0; i < probers.length; i++) {
        Quorum.View v = s.probers[i];
        out.writeBytes(probers[i]);
        out.writeLong(v.status.ordinal());
        out.writeLong(v.successes);
        out.writeLong(v.failures);
        out.writeLong(v.lastEventTime);
        out.writeLong(v.expiresAt);
      }
    }
    out.writeLong(0);
    if (s.lastKnown == null) {
      out.writeLong(0); // union branch: null
    } else {
      out.writeLong(1);
      out.writeLong(s.lastKnown.ordinal());
    }
    return Arrays.copyOf(out.buf, out.pos);
  }

  private static byte[] utf8(String s) {
    return s.isEmpty() ? EMPTY : s.getBytes(StandardCharsets.UTF_8);
  }

  /** The group as Avro's generated record, for the writer that is not hand-made. */
  static EndpointStates states(EndpointTable.Group group) {
    return new EndpointStates(group.members.stream().map(s -> EndpointStateEntry.newBuilder().setId(s.id).setStatus(s.status).setSince(Instant.ofEpochMilli(s.since))
        .setConsecutiveSuccesses(s.successes).setConsecutiveFailures(s.failures)
        .setLastEventTime(Instant.ofEpochMilli(s.lastEventTime)).setExpiresAt(s.expiresAt)
        .setVersion(s.version).setDamping(damping(s.damping)).setProber(s.prober).setProbers(probers(s.probers))
        .setLastKnownStatus(s.lastKnown).build()).toList());
  }

  private static EndpointDamping damping(EndpointState.Damping d) {
    return d == null ? null : EndpointDamping.newBuilder().setPendingStatus(d.pending).setPendingSince(d.pendingSince)
        .setFailures(Arrays.stream(d.failures).boxed().toList()).setSuppressedUntil(d.suppressedUntil)
        .setSuppressions(d.suppressions).setLastSuppressionEnd(d.lastSuppressionEnd).build();
  }

  private static List<EndpointProberState> probers(Quorum.View[] views) {
    return views == null ? List.of() : Arrays.stream(views).map(v -> new EndpointProberState(v.prober, v.status,
        v.successes, v.failures, v.lastEventTime, v.expiresAt)).toList();
  }

  /** Null when none: one prober counts (R-PQ-1). */
  private static Quorum.View[] views(List<EndpointProberState> stored) {
    if (stored.isEmpty()) {
      return null;
    }
    return stored.stream().map(e -> {
      Quorum.View v = new Quorum.View(e.getProber().intern());
      v.status = e.getStatus() == null ? HealthStatus.UNKNOWN : e.getStatus();
      v.successes = e.getConsecutiveSuccesses();
      v.failures = e.getConsecutiveFailures();
      v.lastEventTime = e.getLastEventTime();
      v.expiresAt = e.getExpiresAt();
      return v;
    }).toArray(Quorum.View[]::new);
  }

  private static EndpointState.Damping damping(EndpointDamping e) {
    if (e == null) {
      return null;
    }
    EndpointState.Damping d = new EndpointState.Damping();
    d.pending = e.getPendingStatus();
    d.pendingSince = e.getPendingSince();
    d.failures = e.getFailures().stream().mapToLong(Long::longValue).toArray();
    d.suppressedUntil = e.getSuppressedUntil();
    d.suppressions = e.getSuppressions();
    d.lastSuppressionEnd = e.getLastSuppressionEnd();
    return d;
  }

  /** A detached group: the value does not know its store key, so neither do its members. */
  private EndpointTable.Group decode(String topic, byte[] bytes) {
    EndpointTable.Group group = new EndpointTable.Group(null);
    for (EndpointStateEntry e : reader.deserialize(topic, bytes).getEndpoints()) {
      EndpointState s = new EndpointState(e.getId());
      s.status = e.getStatus() == null ? HealthStatus.UNKNOWN : e.getStatus();
      s.since = e.getSince().toEpochMilli();
      s.successes = e.getConsecutiveSuccesses();
      s.failures = e.getConsecutiveFailures();
      s.lastEventTime = e.getLastEventTime().toEpochMilli();
      s.expiresAt = e.getExpiresAt();
      s.version = e.getVersion();
      s.damping = damping(e.getDamping());
      // interned: a handful of prober names are shared by every endpoint they probe
      s.prober = e.getProber().intern();
      s.probers = views(e.getProbers());
      s.lastKnown = e.getLastKnownStatus();
      s.group = group;
      group.members.add(s);
    }
    return group;
  }

  /** Avro's zig-zag varints into a buffer its caller sized for the longest encoding: no bounds checks of its own. */
  private static final class Writer {
    final byte[] buf;
    int pos;

    Writer(int capacity) {
      buf = new byte[capacity];
    }

    void writeBytes(byte[] b) {
      writeLong(b.length);
      System.arraycopy(b, 0, buf, pos, b.length);
      pos += b.length;
    }

    void writeLong(long v) {
      long n = (v << 1) ^ (v >> 63);
      while ((n & ~0x7FL) != 0) {
        buf[pos++] = (byte) ((n & 0x7F) | 0x80);
        n >>>= 7;
      }
      buf[pos++] = (byte) n;
    }
  }
}
