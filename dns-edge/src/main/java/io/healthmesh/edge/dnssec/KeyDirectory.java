package io.healthmesh.edge.dnssec;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.xbill.DNS.Name;

/**
 * The BIND key files an edge mounts (R-DNSSEC-3): every {@code K*.key} with its {@code .private},
 * by zone. Read again when a file in it changed, so a rollover's new key needs no restart; a file
 * that cannot be read is a problem reported, never a key half used.
 *
 * @param stamp names, sizes and times of the files read, to tell whether to read again
 */
record KeyDirectory(Map<Name, List<ZoneKey>> keys, List<String> problems, String stamp) {
  static final KeyDirectory EMPTY = new KeyDirectory(Map.of(), List.of(), "");

  static KeyDirectory read(Path dir) {
    Map<Name, List<ZoneKey>> keys = new HashMap<>();
    List<String> problems = new ArrayList<>();
    for (Path file : files(dir, problems)) {
      try {
        ZoneKey key = BindKeyFiles.read(file);
        keys.computeIfAbsent(key.zone(), z -> new ArrayList<>()).add(key);
      } catch (IOException | RuntimeException e) {
        problems.add(file.getFileName() + ": " + e.getMessage());
      }
    }
    keys.replaceAll((zone, list) -> List.copyOf(list));
    return new KeyDirectory(Map.copyOf(keys), List.copyOf(problems), stamp(dir));
  }

  /** Whether the directory holds other files, or other versions of them, than when read. */
  boolean changed(Path dir) {
    return !stamp.equals(stamp(dir));
  }

  private static List<Path> files(Path dir, List<String> problems) {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "K*.key")) {
      stream.forEach(files::add);
    } catch (IOException e) {
      problems.add(dir + ": cannot list key files: " + e.getMessage());
    }
    files.sort(null);
    return files;
  }

  private static String stamp(Path dir) {
    Map<String, String> seen = new TreeMap<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "K*")) {
      for (Path p : stream) {
        seen.put(p.getFileName().toString(), Files.size(p) + "@" + Files.getLastModifiedTime(p).toMillis());
      }
    } catch (IOException e) {
      return "unreadable: " + e.getMessage();
    }
    return seen.toString();
  }
}
