package io.healthmesh.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.healthmesh.config.ManagedZone;
import io.healthmesh.events.HealthState;
import io.healthmesh.events.ProbeResult;
import io.healthmesh.schemas.AvroDeserializationException;
import io.healthmesh.schemas.SchemaRegistryClient;
import io.healthmesh.schemas.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

class AvroSummaryTest {

  @Test
  void summaryFromTheBytes_isTheRecordsSummary_forEveryCaseAtEveryWidth() throws Exception {
    for (AvroJsonTest.SummaryCase c : AvroJsonTest.summaryCases()) {
      byte[] body = body(c.record());
      String whole = AvroJson.summary(c.record(), c.leftOut(), 1_000_000);
      for (int width = 3; width <= whole.length() + 2; width++) {
        AvroSummary summary = AvroSummary.of(c.record().getSchema(), c.leftOut(), width);
        assertThat(summary.summary(body, 0, body.length)).as(whole + " at " + width)
            .isEqualTo(AvroJson.summary(c.record(), c.leftOut(), width));
      }
    }
  }

  @Test
  void damagedBody_fails_evenWhenItsLineIsFullBeforeTheDamage() throws Exception {
    ManagedZone zone = ManagedZone.newBuilder().setName("z").setDnsName("z.internal.").setDescription("d").build();
    byte[] body = body(zone);
    AvroSummary narrow = AvroSummary.of(zone.getSchema(), List.of(), 5);

    assertThatThrownBy(() -> narrow.summary(body, 0, body.length - 1)).isInstanceOf(EOFException.class);
    byte[] longer = Arrays.copyOf(body, body.length + 1);
    assertThatThrownBy(() -> narrow.summary(longer, 0, longer.length)).hasMessageContaining("left over");
  }

  @Test
  void readsOnlySchemasWhoseBytesMapStraightToText() {
    assertThat(AvroSummary.of(ManagedZone.getClassSchema(), List.of(), 100)).isNotNull();
    for (ResourceKind kind : ResourceKind.values()) {
      assertThat(AvroSummary.of(kind.schema(), kind.identity(), 100)).as(kind.kindName()).isNotNull();
    }
    // timestamps are written from their Java value
    assertThat(AvroSummary.of(ProbeResult.getClassSchema(), List.of(), 100)).isNull();
    assertThat(AvroSummary.of(HealthState.getClassSchema(), List.of(), 100)).isNull();
    Schema withMap = SchemaBuilder.record("M").fields().name("m").type().map().values().intType().noDefault()
        .endRecord();
    assertThat(AvroSummary.of(withMap, List.of(), 100)).isNull();
  }

  @Test
  void summaries_takeTheBytesRoute_orDecode_andRefuseWhatCannotBeRead() throws Exception {
    ManagedZone zone = ManagedZone.newBuilder().setName("z").setDnsName("z.internal.").setDescription("d").build();
    String expected = AvroJson.summary(zone, ResourceKind.MANAGED_ZONE.identity(), 100);
    // id 1: the generated class's schema; id 2: an older writer schema without the description
    Schema older = SchemaBuilder.record("ManagedZone").namespace("io.healthmesh.config").fields()
        .requiredString("name").requiredString("dnsName").endRecord();
    SchemaRegistryClient registry = registry(Map.of(1, zone.getSchema(), 2, older));
    Shelf.Summaries summaries = new Shelf.Summaries(registry, 100);
    String topic = ResourceKind.MANAGED_ZONE.topic().name();

    assertThat(summaries.fromBytes(ResourceKind.MANAGED_ZONE, 1)).isFalse();
    assertThat(summaries.read(ResourceKind.MANAGED_ZONE, topic, framed(1, body(zone)))).isEqualTo(expected);
    assertThat(summaries.fromBytes(ResourceKind.MANAGED_ZONE, 1)).as("the writer's schema is the class's").isTrue();
    assertThat(summaries.read(ResourceKind.MANAGED_ZONE, topic, framed(1, body(zone)))).isEqualTo(expected);

    ManagedZone asOlderWrote = ManagedZone.newBuilder(zone).setDescription("").build();
    for (int i = 0; i < 2; i++) {
      assertThat(summaries.read(ResourceKind.MANAGED_ZONE, topic, framed(2, body(zone, older))))
          .isEqualTo(AvroJson.summary(asOlderWrote, ResourceKind.MANAGED_ZONE.identity(), 100));
    }
    assertThat(summaries.fromBytes(ResourceKind.MANAGED_ZONE, 2)).as("another version of the schema").isFalse();
    byte[] damaged = framed(1, Arrays.copyOf(body(zone), body(zone).length - 1));
    assertThatThrownBy(() -> summaries.read(ResourceKind.MANAGED_ZONE, topic, damaged))
        .isInstanceOf(AvroDeserializationException.class).hasMessageContaining("body ended");
  }

  private static byte[] body(SpecificRecord record) throws IOException {
    return body(record, record.getSchema());
  }

  /** The record's fields written with {@code schema}'s (a writer's schema with fewer fields drops the others). */
  private static byte[] body(SpecificRecord record, Schema schema) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    if (schema.equals(record.getSchema())) {
      new SpecificDatumWriter<SpecificRecord>(schema).write(record, encoder);
    } else {
      for (Schema.Field field : schema.getFields()) {
        encoder.writeString(record.get(record.getSchema().getField(field.name()).pos()).toString());
      }
    }
    encoder.flush();
    return out.toByteArray();
  }

  private static byte[] framed(int id, byte[] body) {
    byte[] framed = new byte[WireFormat.HEADER_SIZE + body.length];
    WireFormat.writeHeader(framed, id);
    System.arraycopy(body, 0, framed, WireFormat.HEADER_SIZE, body.length);
    return framed;
  }

  /** A registry that knows these schemas by id, and is asked nothing else. */
  private static SchemaRegistryClient registry(Map<Integer, Schema> schemas) {
    return (SchemaRegistryClient) Proxy.newProxyInstance(SchemaRegistryClient.class.getClassLoader(),
        new Class<?>[] {SchemaRegistryClient.class}, (proxy, method, args) -> {
          if (!method.getName().equals("byId")) {
            throw new UnsupportedOperationException(method.getName());
          }
          return schemas.get((Integer) args[0]);
        });
  }
}
