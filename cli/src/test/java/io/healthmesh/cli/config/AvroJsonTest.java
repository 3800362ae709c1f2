package io.healthmesh.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healthmesh.config.BackendService;
import io.healthmesh.config.ManagedZone;
import io.healthmesh.config.ResourceRecordSet;
import io.healthmesh.config.ZoneVisibility;
import io.healthmesh.events.ProbeResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

class AvroJsonTest {

  @Test
  void readsBackWhatItWrote_forEveryDemoResource() throws Exception {
    for (Resource r : Configs.demo()) {
      SpecificRecord again = AvroJson.read(AvroJson.write(r.value(), r.kind().identity()), r.kind().schema(), List.of());
      assertThat(again).as(r.ref().toString()).isEqualTo(r.value());
    }
  }

  @Test
  void summaryIsTheDocumentOnOneLineCut_forEveryDemoResourceAtEveryWidth() throws Exception {
    ObjectMapper json = new ObjectMapper();
    for (SummaryCase c : summaryCases()) {
      ObjectNode whole = AvroJson.write(c.record(), c.leftOut());
      c.leftOut().forEach(whole::remove);
      String line = json.writeValueAsString(whole);
      for (int width = 3; width <= line.length() + 2; width++) {
        String expected = line.length() > width ? line.substring(0, width - 3) + "..." : line;
        assertThat(AvroJson.summary(c.record(), c.leftOut(), width)).as(line + " at " + width).isEqualTo(expected);
      }
    }
  }

  /** A record summarised, less the fields a table shows in columns of their own. */
  record SummaryCase(SpecificRecord record, List<String> leftOut) {}

  /**
   * Every demo resource; text Jackson escapes and text beyond Latin-1; numbers Jackson writes its
   * own way; and a record set whose nested fields hold their defaults or not, with a long list.
   */
  static List<SummaryCase> summaryCases() {
    List<SummaryCase> cases = new ArrayList<>();
    for (Resource r : Configs.demo()) {
      cases.add(new SummaryCase(r.value(), r.kind().identity()));
    }
    cases.add(new SummaryCase(ManagedZone.newBuilder().setName("z").setDnsName("z.internal.")
        .setDescription("quote \" backslash \\ newline \n tab \t bell \u0007 delete \u007f separator \u2028 é 😀 </script>")
        .build(), List.of("name")));
    for (double trickle : new double[] {0.0, 0.1, 1e-7, 2.5e21, Double.NaN, Double.POSITIVE_INFINITY, -0.0}) {
      ResourceRecordSet failover = ResourceRecordSet.newBuilder(firstFailover()).build();
      failover.getRoutingPolicy().getPrimaryBackup().setTrickleTraffic(trickle);
      cases.add(new SummaryCase(failover, List.of()));
      cases.add(new SummaryCase(failover, RESOURCE_RECORD_SET_IDENTITY));
    }
    for (int size : new int[] {0, 1, 300}) {
      ResourceRecordSet many = ResourceRecordSet.newBuilder(firstFailover()).build();
      many.getRoutingPolicy().getPrimaryBackup().getBackupGeoTargets().setEnableFencing(size > 0);
      many.getRoutingPolicy().getPrimaryBackup().getBackupGeoTargets().getItems().forEach(item -> {
        List<String> rrdatas = new ArrayList<>();
        for (int i = 0; i < size; i++) {
          rrdatas.add("10.1." + i / 250 + "." + i % 250);
        }
        item.setRrdatas(rrdatas); // none: at its default, left out
      });
      cases.add(new SummaryCase(many, RESOURCE_RECORD_SET_IDENTITY));
      cases.add(new SummaryCase(many, List.of()));
    }
    return cases;
  }

  private static final List<String> RESOURCE_RECORD_SET_IDENTITY = ResourceKind.RESOURCE_RECORD_SET.identity();

  private static ResourceRecordSet firstFailover() {
    return Configs.demo().stream().map(Resource::value).filter(v -> v instanceof ResourceRecordSet rrs
        && rrs.getRoutingPolicy() != null && rrs.getRoutingPolicy().getPrimaryBackup() != null)
        .map(v -> (ResourceRecordSet) v).findFirst().orElseThrow();
  }

  @Test
  void leavesDefaultsOut_butKeepsIdentity() {
    ManagedZone zone = ManagedZone.newBuilder().setName("z").setDnsName("z.internal.").build();
    assertThat(AvroJson.write(zone, List.of("name")).toString()).isEqualTo("{\"name\":\"z\",\"dnsName\":\"z.internal.\"}");
  }

  @Test
  void matchesEnumsInAnyCase_andFillsDefaults() throws Exception {
    ManagedZone zone = AvroJson.read(new ObjectMapper().readTree("{\"name\":\"z\",\"dnsName\":\"z.\",\"visibility\":\"public\"}"),
        ManagedZone.getClassSchema(), List.of());
    assertThat(zone.getVisibility()).isEqualTo(ZoneVisibility.PUBLIC);
    assertThat(zone.getSoaMinimumTtl()).isEqualTo(300);
  }

  @Test
  void readsTimestampsAsIsoTextOrEpochMillis() throws Exception {
    ObjectMapper json = new ObjectMapper();
    ProbeResult iso = AvroJson.read(json.readTree("{\"eventTime\":\"2026-11-30T12:00:00Z\"}"),
        ProbeResult.getClassSchema(), List.of());
    ProbeResult millis = AvroJson.read(json.readTree("{\"eventTime\":1796040000000}"), ProbeResult.getClassSchema(), List.of());
    assertThat(iso.getEventTime()).isEqualTo(Instant.parse("2026-11-30T12:00:00Z")).isEqualTo(millis.getEventTime());
    assertThatThrownBy(() -> AvroJson.read(json.readTree("{\"eventTime\":\"yesterday\"}"), ProbeResult.getClassSchema(),
        List.of())).hasMessageContaining("eventTime: expected an ISO-8601 time");
  }

  @Test
  void reportsEveryProblemWithItsPath() {
    assertThatThrownBy(() -> AvroJson.read(new ObjectMapper().readTree(
        "{\"name\":1,\"dnsName\":\"z.\",\"networks\":\"10.0.0.0/8\",\"visibility\":\"secret\"}"),
        ManagedZone.getClassSchema(), List.of()))
        .isInstanceOfSatisfying(AvroJson.ConversionException.class, e -> assertThat(e.problems()).containsExactly(
            "visibility: 'secret' is not one of [PRIVATE, PUBLIC]",
            "networks: expected a list, got '10.0.0.0/8'"));
  }

  @Test
  void namesNestedPlaces_withFieldsAndListPositions() {
    assertThatThrownBy(() -> AvroJson.read(new ObjectMapper().readTree("{\"name\":\"a\",\"region\":\"r\","
        + "\"endpoints\":[{\"id\":\"e0\",\"ipAddress\":\"10.0.0.1\"},{\"ipAddress\":\"10.0.0.2\",\"color\":1}],"
        + "\"healthCheck\":{\"port\":\"x\"}}"), BackendService.getClassSchema(), List.of()))
        .isInstanceOfSatisfying(AvroJson.ConversionException.class, e -> assertThat(e.problems()).contains(
            "endpoints[1].color: unknown field; Endpoint has " + fieldNames(io.healthmesh.config.Endpoint.getClassSchema()),
            "endpoints[1].id: required", "healthCheck.port: expected a whole number, got 'x'"));
  }

  private static String fieldNames(org.apache.avro.Schema schema) {
    return schema.getFields().stream().map(org.apache.avro.Schema.Field::name).toList().toString();
  }
}
