package io.healthmesh.streams.codec;

import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.AvroDeserializer;
import io.healthmesh.schemas.RegistryException;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.WireFormat;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.SchemaNormalization;

/**
 * Reads probe results, the one value decoded for every input record. Records written with this
 * build's own schema are read by hand, which costs a fraction of Avro's resolving reader and
 * skips the text field the topology never reads ({@code detail}: left empty); prober names are
 * shared ({@link ProberNames}).
 * Anything else, including every malformed record, goes through the ordinary deserializer, so
 * errors and dead-letter reasons are exactly its own.
 */
public final class ProbeDecoder {
  private static final ProbeRecordType[] TYPES = ProbeRecordType.values();
  private static final long OWN_FINGERPRINT = SchemaNormalization.parsingFingerprint64(ProbeResult.SCHEMA$);
  private final SchemaRegistryClient registry;
  private final AvroDeserializer<ProbeResult> general;
  private final Map<Integer, Boolean> ownSchema = new ConcurrentHashMap<>();
  private final ProberNames probers = new ProberNames();
  /** An id known to be this build's schema; -1 before the first. Ids are never negative. */
  private volatile int lastOwnId = -1;

  public ProbeDecoder(SchemaRegistryClient registry) {
    this.registry = registry;
    this.general = new AvroDeserializer<>(registry, ProbeResult.class);
  }

  public ProbeResult deserialize(String topic, byte[] data) {
    if (data != null && data.length > WireFormat.HEADER_SIZE && data[0] == WireFormat.MAGIC_BYTE
        && isOwn(WireFormat.schemaId(topic, data))) {
      ProbeResult fast = new Reader(data, probers).read();
      if (fast != null) {
        return fast;
      }
    }
    ProbeResult probe = general.deserialize(topic, data);
    if (probe != null) {
      probe.setProber(probers.of(probe.getProber()));
    }
    return probe;
  }

  private boolean isOwn(int id) {
    if (id == lastOwnId) {
      return true; // nearly every probe: skip the map
    }
    Boolean known = ownSchema.get(id);
    if (known != null) {
      return known;
    }
    boolean own;
    try {
      // The binary layout is all that matters: compare parsing canonical forms.
      own = SchemaNormalization.parsingFingerprint64(registry.byId(id)) == OWN_FINGERPRINT;
    } catch (RegistryException e) {
      return false; // not remembered, as the registry may know it later; the ordinary path reports it
    }
    ownSchema.put(id, own);
    if (own) {
      lastOwnId = id;
    }
    return own;
  }

  /** ProbeResult's fields in schema order; null at the first thing out of place. */
  private static final class Reader {
    private final byte[] b;
    private final ProberNames probers;
    private int pos = WireFormat.HEADER_SIZE;
    private boolean bad;

    Reader(byte[] b, ProberNames probers) {
      this.b = b;
      this.probers = probers;
    }

    ProbeResult read() {
      long type = readInt();
      long union = readInt();
      String service = union == 1 ? readString() : null;
      String endpoint = readString();
      int success = pos < b.length ? b[pos++] : -1;
      long eventTime = readLong();
      int proberLength = stringLength();
      String prober = bad ? "" : probers.of(b, pos, proberLength);
      pos += proberLength;
      long latency = readLong();
      skipString();
      if (bad || pos != b.length || type < 0 || type >= TYPES.length || union < 0 || union > 1
          || success < 0 || success > 1) {
        return null;
      }
      return new ProbeResult(TYPES[(int) type], service, endpoint, success == 1, Instant.ofEpochMilli(eventTime), prober,
          latency, "");
    }

    /** Avro ints (enum and union indexes) take at most 5 bytes; Avro rejects longer ones. */
    private long readInt() {
      return readVarint(35);
    }

    private long readLong() {
      return readVarint(70);
    }

    private long readVarint(int maxBits) {
      long n = 0;
      for (int shift = 0; shift < maxBits && pos < b.length; shift += 7) {
        int x = b[pos++];
        n |= (long) (x & 0x7F) << shift;
        if (x >= 0) {
          return (n >>> 1) ^ -(n & 1);
        }
      }
      bad = true;
      return 0;
    }

    private String readString() {
      int length = stringLength();
      if (bad) {
        return "";
      }
      String s = new String(b, pos, length, StandardCharsets.UTF_8);
      pos += length;
      return s;
    }

    private void skipString() {
      int length = stringLength(); // before pos is read: stringLength moves it
      pos += length;
    }

    private int stringLength() {
      long length = readLong();
      if (bad || length < 0 || length > b.length - pos) {
        bad = true;
        return 0;
      }
      return (int) length;
    }
  }
}
