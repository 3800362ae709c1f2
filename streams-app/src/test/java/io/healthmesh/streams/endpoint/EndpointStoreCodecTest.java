package io.healthmesh.streams.endpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healthmesh.events.HealthStatus;
import io.healthmesh.events.ProbeRecordType;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.internal.EndpointStateEntry;
import io.healthmesh.internal.EndpointStates;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.AvroDeserializer;
import io.healthmesh.schemas.AvroSerializer;
import io.healthmesh.schemas.InMemorySchemaRegistryClient;
import io.healthmesh.schemas.WireFormat;
import io.healthmesh.streams.codec.ProbeDecoder;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hand-written codecs of the per-probe path agree with Avro's own reader. */
class EndpointStoreCodecTest {
  private static final String CHANGELOG = "app-endpoints-changelog";
  private final InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();

  @Test
  void endpointGroup_readsBackThroughAvro_whenEncodedByHand() {
    EndpointTable.Group group = new EndpointTable.Group("svc#0");
    Random random = new Random(7);
    for (int i = 0; i < 40; i++) {
      EndpointState s = new EndpointState(i == 3 ? "vm-é-ü-" + i : "vm-" + i);
      s.status = HealthStatus.values()[random.nextInt(3)];
      s.since = random.nextLong();
      s.successes = random.nextInt(Integer.MAX_VALUE);
      s.failures = i == 5 ? Integer.MAX_VALUE : random.nextInt(4);
      s.lastEventTime = i == 6 ? Long.MIN_VALUE : 1_790_000_000_000L + random.nextInt();
      s.expiresAt = i == 7 ? 0 : Long.MAX_VALUE - i;
      s.version = random.nextInt(1000);
      if (i % 4 == 1) { // R-OP-3's damping: pending or not, with and without failures
        s.damping = new EndpointState.Damping();
        s.damping.pending = i % 8 == 1 ? null : HealthStatus.values()[random.nextInt(3)];
        s.damping.pendingSince = random.nextLong();
        s.damping.failures = random.longs(i % 3, 0, Long.MAX_VALUE).toArray();
        s.damping.suppressedUntil = i == 9 ? Long.MAX_VALUE : random.nextInt();
        s.damping.suppressions = random.nextInt(40);
        s.damping.lastSuppressionEnd = random.nextLong();
      }
      if (i % 3 == 0) {
        s.prober = "eu-west/prober-" + i + (i == 3 ? "-ß" : "");
      } else if (i % 5 == 2) { // R-PQ-1: several probers' views, each with its own counts and times
        s.probers = new Quorum.View[1 + i % 3];
        for (int v = 0; v < s.probers.length; v++) {
          s.probers[v] = new Quorum.View(v == 1 ? "" : "region-" + v);
          s.probers[v].status = HealthStatus.values()[random.nextInt(3)];
          s.probers[v].successes = random.nextInt(Integer.MAX_VALUE);
          s.probers[v].failures = random.nextInt(3);
          s.probers[v].lastEventTime = random.nextLong();
          s.probers[v].expiresAt = random.nextLong();
        }
      }
      if (i % 6 == 4) { // R-OP-2: what an UNKNOWN endpoint was, kept for interactive queries
        s.lastKnown = i % 12 == 4 ? HealthStatus.HEALTHY : HealthStatus.UNHEALTHY;
      }
      group.members.add(s);
    }
    EndpointGroupSerde serde = new EndpointGroupSerde(registry);
    byte[] bytes = serde.serializer().serialize(CHANGELOG, group);

    List<EndpointStateEntry> read = new AvroDeserializer<>(registry, EndpointStates.class)
        .deserialize(CHANGELOG, bytes).getEndpoints();
    assertEquals(group.members.size(), read.size());
    for (int i = 0; i < read.size(); i++) {
      EndpointState s = group.members.get(i);
      EndpointStateEntry e = read.get(i);
      assertEquals(List.of(s.id, s.status, s.since, s.successes, s.failures, s.lastEventTime, s.expiresAt, s.version),
          List.of(e.getId(), e.getStatus(), e.getSince().toEpochMilli(), e.getConsecutiveSuccesses(),
              e.getConsecutiveFailures(), e.getLastEventTime().toEpochMilli(), e.getExpiresAt(), e.getVersion()));
    }
    EndpointState back = serde.deserializer().deserialize(CHANGELOG, bytes).members.get(3);
    assertEquals(group.members.get(3).id, back.id);
    for (int i = 1; i < group.members.size(); i += 4) {
      EndpointState.Damping d = group.members.get(i).damping;
      EndpointState.Damping r = serde.deserializer().deserialize(CHANGELOG, bytes).members.get(i).damping;
      assertEquals(List.of(String.valueOf(d.pending), d.pendingSince, java.util.Arrays.toString(d.failures),
          d.suppressedUntil, d.suppressions, d.lastSuppressionEnd), List.of(String.valueOf(r.pending), r.pendingSince,
          java.util.Arrays.toString(r.failures), r.suppressedUntil, r.suppressions, r.lastSuppressionEnd));
    }
    assertEquals(null, serde.deserializer().deserialize(CHANGELOG, bytes).members.get(0).damping);
    assertEquals(group.members.stream().map(EndpointState::toString).toList(),
        serde.deserializer().deserialize(CHANGELOG, bytes).members.stream().map(EndpointState::toString).toList(),
        "everything stored, the probers' views too (R-PQ-1)");
    // Avro's own writer, the fallback should the schema change, writes the very same bytes.
    assertArrayEquals(new io.healthmesh.schemas.AvroSerializer<EndpointStates>(registry, false)
        .serialize(CHANGELOG, EndpointGroupSerde.states(group)), bytes);
  }

  @Test
  void handEncoder_isUsed_whileTheSchemaIsTheLayoutItWasWrittenFor() {
    // Failing here means EndpointStates.avsc changed: update EndpointGroupSerde.encode and WRITTEN_FOR.
    assertTrue(EndpointGroupSerde.BY_HAND, "EndpointStates' fingerprint is "
        + org.apache.avro.SchemaNormalization.parsingFingerprint64(EndpointStates.SCHEMA$));
  }

  @Test
  void changedMember_isEncodedAgain_whenItsCachedEncodingIsDropped() {
    EndpointTable.Group group = new EndpointTable.Group("svc#0");
    EndpointState s = new EndpointState("vm-1");
    group.members.add(s);
    EndpointGroupSerde serde = new EndpointGroupSerde(registry);
    byte[] before = serde.serializer().serialize(CHANGELOG, group);
    s.lastEventTime = 42;
    s.encoded = null; // what EndpointTable.save does
    byte[] after = serde.serializer().serialize(CHANGELOG, group);
    assertNotEquals(List.of(before), List.of(after));
    assertEquals(42, serde.deserializer().deserialize(CHANGELOG, after).members.get(0).lastEventTime);
  }

  @Test
  void probe_readByHandLikeAvro_whenWrittenWithThisBuildsSchema() {
    AvroSerializer<ProbeResult> writer = new AvroSerializer<>(registry, false);
    ProbeDecoder decoder = new ProbeDecoder(registry);
    AvroDeserializer<ProbeResult> avro = new AvroDeserializer<>(registry, ProbeResult.class);
    Random random = new Random(3);
    for (int i = 0; i < 2_000; i++) {
      ProbeResult probe = ProbeResult.newBuilder()
          .setType(i % 50 == 0 ? ProbeRecordType.HEARTBEAT : ProbeRecordType.RESULT)
          .setBackendService(i % 7 == 0 ? null : "svc-" + random.nextInt(100) + (i % 11 == 0 ? "-ñ" : ""))
          .setEndpointId(i % 13 == 0 ? "" : "10.0.0." + random.nextInt(256)).setSuccess(random.nextBoolean())
          .setEventTime(Instant.ofEpochMilli(random.nextLong() >>> random.nextInt(64)))
          .setProber(i % 17 == 0 ? "" : "prober-" + i % 5 + (i % 3 == 0 ? "-ñ" : "")).setLatencyMicros(random.nextLong()).setDetail("HTTP " + i).build();
      byte[] bytes = writer.serialize("probe-results", probe);
      ProbeResult fast = decoder.deserialize("probe-results", bytes);
      ProbeResult slow = avro.deserialize("probe-results", bytes);
      assertEquals("", fast.getDetail(), "read by hand, which leaves the unused text empty");
      assertSame(fast.getProber(), decoder.deserialize("probe-results", bytes).getProber(), "one String per prober name");
      slow.setDetail("");
      assertEquals(slow, fast);
    }
  }

  @Test
  void damagedProbe_failsAsAvroDoes_whenTruncatedOrFlipped() {
    AvroSerializer<ProbeResult> writer = new AvroSerializer<>(registry, false);
    byte[] good = writer.serialize("probe-results", ProbeResult.newBuilder().setBackendService("svc").setEndpointId("vm-1")
        .setSuccess(true).setEventTime(Instant.parse("2026-11-30T00:00:00Z")).setProber("p").setDetail("ok").build());
    ProbeDecoder decoder = new ProbeDecoder(registry);
    AvroDeserializer<ProbeResult> avro = new AvroDeserializer<>(registry, ProbeResult.class);
    Random random = new Random(11);
    for (int i = 0; i < 5_000; i++) {
      byte[] bad = java.util.Arrays.copyOf(good, i < good.length ? i : good.length + random.nextInt(3));
      if (i >= good.length) {
        bad[WireFormat.HEADER_SIZE + random.nextInt(bad.length - WireFormat.HEADER_SIZE)] = (byte) random.nextInt(256);
      }
      assertEquals(outcome(() -> avro.deserialize("probe-results", bad)),
          outcome(() -> decoder.deserialize("probe-results", bad)));
    }
  }

  private static String outcome(java.util.function.Supplier<ProbeResult> read) {
    try {
      ProbeResult r = read.get();
      return r.getType() + "|" + r.getBackendService() + "|" + r.getEndpointId() + "|" + r.getSuccess() + "|"
          + r.getEventTime() + "|" + r.getLatencyMicros();
    } catch (AvroDeserializationException e) {
      // Past the exception's class: once the JIT throws a hot exception without its message
      // (OmitStackTraceInFastThrow), the same damage reads "...Exception" alone.
      return e.reason() + ": " + e.getMessage().replaceAll("(Exception|Error): .*$", "$1");
    }
  }

  @Test
  void lastKnown_isWhatTheStateWasBeforeUnknown_R_OP_2() {
    EndpointState s = new EndpointState("vm-1");
    s.moveTo(HealthStatus.UNKNOWN);
    assertEquals(null, s.lastKnown, "never known");
    s.moveTo(HealthStatus.HEALTHY);
    assertEquals(null, s.lastKnown, "known now");
    s.moveTo(HealthStatus.UNKNOWN);
    assertEquals(HealthStatus.HEALTHY, s.lastKnown);
    s.moveTo(HealthStatus.UNKNOWN);
    assertEquals(HealthStatus.HEALTHY, s.lastKnown, "staying unknown keeps it");
    s.moveTo(HealthStatus.UNHEALTHY);
    assertEquals(null, s.lastKnown);
  }
}
