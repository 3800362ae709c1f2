package io.healthmesh.cli.launch;

import io.healthmesh.cli.config.Catalog;
import io.healthmesh.cli.config.Resource;
import io.healthmesh.cli.config.ResourceReader;
import io.healthmesh.cli.config.Validator;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo's configuration, {@code examples/demo.yaml} (shipped in the jar): one service per
 * region behind an internal application LB, each judged by a composite check, and a private zone
 * with a WRR, a failover-with-trickle and a geolocation record set over them.
 */
final class SampleConfig {
  static final String RESOURCE = "/io/healthmesh/cli/demo.yaml";
  static final List<String> REGIONS = List.of("us-east1", "europe-west1");

  private SampleConfig() {}

  /** The sample's resources, parsed and checked as {@code apply} would. */
  static List<Resource> resources() {
    try (InputStream in = SampleConfig.class.getResourceAsStream(RESOURCE)) {
      ResourceReader.Read read = ResourceReader.read("demo.yaml", in);
      List<String> problems = new ArrayList<>(read.problems());
      problems.addAll(Validator.check(new Catalog(), read.resources()));
      if (!problems.isEmpty()) {
        throw new IllegalStateException("the sample configuration is broken: " + problems);
      }
      return read.resources();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
