package io.healthmesh.registry;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who may use a registry with HTTP basic authentication, from a file of {@code name: password,
 * role} lines (the format of Jetty's property file login that Confluent's registry reads). Role
 * {@code read} may read schemas, look them up and check compatibility; role {@code write} may
 * also register schemas and set compatibility. Blank lines and {@code #} comments are skipped.
 */
final class RegistryUsers {
  static final String READ = "read";
  static final String WRITE = "write";

  /** An authenticated caller. */
  record Caller(String name, boolean mayWrite) {}

  private record Entry(byte[] password, boolean mayWrite) {}

  private final Map<String, Entry> users;

  private RegistryUsers(Map<String, Entry> users) {
    this.users = Map.copyOf(users);
  }

  /**
   * @param problems where each wrong line is named (the configuration is then rejected whole)
   */
  static RegistryUsers read(Path file, List<String> problems) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      problems.add("cannot read " + file + ": " + e.getMessage());
      return new RegistryUsers(Map.of());
    }
    Map<String, Entry> users = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = file + " line " + (i + 1) + ": ";
      int colon = line.indexOf(':');
      if (colon <= 0) {
        problems.add(where + "expected 'name: password, role'");
        continue;
      }
      String name = line.substring(0, colon).strip();
      String[] fields = line.substring(colon + 1).split(",");
      String password = fields[0].strip();
      List<String> roles = new ArrayList<>();
      for (int f = 1; f < fields.length; f++) {
        roles.add(fields[f].strip());
      }
      if (password.isEmpty()) {
        problems.add(where + "user '" + name + "' has no password");
      } else if (roles.isEmpty() || !List.of(READ, WRITE).containsAll(roles)) {
        problems.add(where + "user '" + name + "' needs the role " + READ + " or " + WRITE + ", has " + roles);
      } else if (users.put(name, new Entry(password.getBytes(StandardCharsets.UTF_8), roles.contains(WRITE))) != null) {
        problems.add(where + "user '" + name + "' is defined twice");
      }
    }
    if (users.isEmpty() && problems.isEmpty()) {
      problems.add(file + " defines no user");
    }
    return new RegistryUsers(users);
  }

  /** The caller an {@code Authorization} header proves, if it proves one. */
  Optional<Caller> authenticate(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
      return Optional.empty();
    }
    String decoded;
    try {
      decoded = new String(Base64.getDecoder().decode(authorization.substring(6).strip()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    int colon = decoded.indexOf(':');
    if (colon < 0) {
      return Optional.empty();
    }
    String name = decoded.substring(0, colon);
    Entry entry = users.get(name);
    byte[] given = decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
    // Compared in constant time, and for unknown users too, so timing tells nothing.
    boolean matches = MessageDigest.isEqual(given, entry == null ? new byte[0] : entry.password());
    return entry != null && matches ? Optional.of(new Caller(name, entry.mayWrite())) : Optional.empty();
  }
}
