package io.healthmesh.edge.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.healthmesh.net.IpAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** R-GEO-1: the client subnet's region, as the edge and {@code audit explain} both judge it. */
class SubnetRegionsTest {

  @Test
  void mapsASubnetInsideAnEntry_onlyWhenItsSourcePrefixIsAtLeastTheEntrys_R_GEO_1() {
    SubnetRegions regions = SubnetRegions.parse("10.200.0.0/16=europe-west1, fd00::/8=us-west1", p -> {});
    assertThat(regions.regionOf(IpAddress.parse("10.200.1.0"), 24)).isEqualTo("europe-west1");
    assertThat(regions.regionOf(IpAddress.parse("10.200.0.0"), 16)).isEqualTo("europe-west1");
    assertThat(regions.regionOf(IpAddress.parse("10.200.0.0"), 8)).isNull();
    assertThat(regions.regionOf(IpAddress.parse("10.201.0.0"), 24)).isNull();
    assertThat(regions.regionOf(IpAddress.parse("FD00:1::"), 56)).isEqualTo("us-west1");
    assertThat(SubnetRegions.NONE.regionOf(IpAddress.parse("10.200.1.0"), 24)).isNull();
  }

  @Test
  void reportsEveryBadEntryWithTheRule_R_GEO_1() {
    List<String> problems = new ArrayList<>();
    SubnetRegions regions = SubnetRegions.parse("10.0.0.0/8=us-east1,::::/8=x,10.0.0.0/40=y,nonsense", problems::add);
    assertThat(problems).containsExactly("'::::/8=x' is not CIDR=region (R-GEO-1)",
        "'10.0.0.0/40=y' is not CIDR=region (R-GEO-1)", "'nonsense' is not CIDR=region (R-GEO-1)");
    assertThat(regions.isEmpty()).isFalse();
  }
}
