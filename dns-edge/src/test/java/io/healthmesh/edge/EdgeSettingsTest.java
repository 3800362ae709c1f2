package io.healthmesh.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class EdgeSettingsTest {

  private static Properties minimal() {
    Properties p = new Properties();
    p.setProperty(EdgeSettings.REGION, "us-east1");
    p.setProperty(EdgeSettings.BOOTSTRAP_SERVERS, "127.0.0.1:9092");
    p.setProperty(EdgeSettings.SCHEMA_REGISTRY_URL, "http://127.0.0.1:8081");
    return p;
  }

  @Test
  void batchesUdpOnTwoThreads_whenNothingIsSaid() {
    EdgeSettings settings = EdgeSettings.from(minimal());

    assertThat(settings.udpBatch()).isTrue();
    assertThat(settings.udpThreads()).isEqualTo(2);
    assertThat(settings.port()).isEqualTo(5353);
  }

  @Test
  void turnsBatchingOff_whenFalseInAnyCase() {
    Properties p = minimal();
    p.setProperty(EdgeSettings.UDP_BATCH, "FALSE");

    assertThat(EdgeSettings.from(p).udpBatch()).isFalse();
  }

  @Test
  void listsEveryProblem_whenSeveralKeysAreInvalid() {
    Properties p = minimal();
    p.setProperty(EdgeSettings.UDP_BATCH, "sometimes");
    p.setProperty(EdgeSettings.UDP_THREADS, "0");
    p.setProperty(EdgeSettings.DECISION_SAMPLE_RATE, "2");
    p.remove(EdgeSettings.REGION);

    assertThatThrownBy(() -> EdgeSettings.from(p))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dns.udp.batch: 'sometimes' is not true or false")
        .hasMessageContaining("dns.udp.threads: 0 is outside 1..64")
        .hasMessageContaining("dns.decisions.sample.rate: 2 is outside 0..1 (R-DNSHC-6)")
        .hasMessageContaining("edge.region: required");
  }
}
