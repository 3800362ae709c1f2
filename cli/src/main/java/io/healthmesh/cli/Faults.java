package io.healthmesh.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/**
 * The demo's failed endpoints, kept in a file in its data directory so that a second terminal
 * ({@code healthctl demo fail ...}) can break things while the demo runs.
 */
final class Faults {
  private final Path file;

  Faults(Path dataDir) {
    this.file = dataDir.resolve("faults");
  }

  /** {@code target} is {@code service/endpoint} or a whole {@code service}. */
  boolean failing(String service, String endpoint) {
    Set<String> failed = read();
    return failed.contains(service) || failed.contains(service + "/" + endpoint);
  }

  void fail(String target) {
    Set<String> failed = read();
    failed.add(target);
    write(failed);
  }

  void heal(String target) {
    Set<String> failed = read();
    if (target.equals("all")) {
      failed.clear();
    } else {
      failed.remove(target);
    }
    write(failed);
  }

  Set<String> read() {
    try {
      return Files.exists(file) ? new TreeSet<>(Files.readAllLines(file).stream().map(String::strip)
          .filter(s -> !s.isEmpty()).toList()) : new TreeSet<>();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void write(Set<String> failed) {
    try {
      Files.createDirectories(file.getParent());
      Path tmp = file.resolveSibling("faults.tmp");
      Files.write(tmp, failed);
      Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
