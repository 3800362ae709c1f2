package io.healthmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A docs page whose part below a marker is written from the code. The check fails while the
 * committed page differs from what the generator writes; with {@code -Dhealthmesh.docs.write=true}
 * it writes the page first, keeping what is above the marker.
 */
final class GeneratedPage {
  private GeneratedPage() {}

  static void check(Path page, String marker, String generated, String rewrite) throws IOException {
    String text = Files.readString(page);
    int at = text.indexOf(marker);
    assertThat(at).as("the marker in " + page).isNotNegative();
    String written = text.substring(0, at + marker.length()) + "\n" + generated;
    if (Boolean.getBoolean("healthmesh.docs.write")) {
      Files.writeString(page, written);
      text = Files.readString(page);
    }
    assertThat(text).as(page + " differs from what the code says; write it again: " + rewrite).isEqualTo(written);
  }
}
