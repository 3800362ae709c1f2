package io.healthmesh.cli;

import io.healthmesh.edge.dnssec.BindKeyFiles;
import io.healthmesh.edge.dnssec.KeyTiming;
import io.healthmesh.edge.dnssec.ZoneKey;
import io.healthmesh.edge.dnssec.ZskRollover;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code healthctl dnssec}: the keys that the edges sign a zone with (R-DNSSEC-3), as BIND key
 * files in a directory every edge of the zone mounts ({@code dns.dnssec.keys.dir}). The private
 * keys stay in that directory; nothing here touches Kafka.
 */
@Command(name = "dnssec", mixinStandardHelpOptions = true,
    description = "Make and roll the DNSSEC keys the edges sign a zone with; print the zone's DS records.",
    subcommands = {DnssecCommand.Keygen.class, DnssecCommand.Ds.class, DnssecCommand.Rollover.class,
        DnssecCommand.Keys.class})
final class DnssecCommand extends CommandGroup {

  /** What every subcommand takes: the zone and the key directory. */
  abstract static class ZoneKeys implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "ZONE", description = "The zone's DNS name, e.g. example.com.")
    String zone;

    @Option(names = "--keys-dir", defaultValue = "keys", description = "The key directory (default: ${DEFAULT-VALUE}).")
    Path dir;

    Name zoneName() {
      try {
        return Name.fromString(zone.endsWith(".") ? zone : zone + ".");
      } catch (TextParseException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "ZONE: '" + zone + "' is not a DNS name");
      }
    }

    List<ZoneKey> keys() throws IOException {
      return BindKeyFiles.readZone(dir, zoneName()).stream().sorted(Comparator.comparing(ZoneKey::file)).toList();
    }

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    static void printDs(PrintWriter out, List<ZoneKey> keys, Instant now, long ttl) {
      for (ZoneKey k : keys) {
        if (k.ksk() && k.timing().published(now)) {
          out.println(k.ds(ttl).toString().replace('\t', ' '));
        }
      }
    }
  }

  @Command(name = "keygen", mixinStandardHelpOptions = true,
      description = "Make a key-signing and a zone-signing key (or one of them) for ZONE, active now.")
  static final class Keygen extends ZoneKeys {
    @Option(names = "--algorithm", defaultValue = "ECDSAP256SHA256",
        description = "ECDSAP256SHA256 (13) or ED25519 (15) (default: ${DEFAULT-VALUE}).")
    String algorithm;

    @Option(names = "--role", defaultValue = "both", description = "both, ksk or zsk (default: ${DEFAULT-VALUE}).")
    String role;

    @Option(names = "--ttl", defaultValue = "3600", description = "TTL of the DNSKEY set, seconds (default: ${DEFAULT-VALUE}).")
    long ttl;

    @Override
    public Integer call() throws Exception {
      int alg = DNSSEC.Algorithm.value(algorithm.toUpperCase(Locale.ROOT));
      if (alg < 0 && algorithm.matches("\\d+")) {
        alg = Integer.parseInt(algorithm);
      }
      if (alg != DNSSEC.Algorithm.ECDSAP256SHA256 && alg != DNSSEC.Algorithm.ED25519) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--algorithm: '" + algorithm
            + "' is not ECDSAP256SHA256 (13) or ED25519 (15)");
      }
      if (!List.of("both", "ksk", "zsk").contains(role)) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--role: '" + role + "' is not both, ksk or zsk");
      }
      Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
      for (boolean ksk : new boolean[] {true, false}) {
        if (role.equals("both") || role.equals(ksk ? "ksk" : "zsk")) {
          ZoneKey key = ZoneKey.generate(zoneName(), alg, ksk, ttl, KeyTiming.from(now));
          BindKeyFiles.write(key, dir);
          out().println("wrote " + dir.resolve(key.file()) + ".{key,private} (" + (ksk ? "KSK" : "ZSK") + ", tag "
              + key.tag() + ")");
          if (ksk) {
            out().println("DS for the parent zone: " + key.ds(ttl).toString().replace('\t', ' '));
          }
        }
      }
      out().println("every edge serving " + zoneName() + " mounts " + dir.toAbsolutePath() + " as dns.dnssec.keys.dir");
      out().flush();
      return 0;
    }
  }

  @Command(name = "ds", mixinStandardHelpOptions = true,
      description = "Print the DS records of ZONE's published key-signing keys, for its parent zone.")
  static final class Ds extends ZoneKeys {
    @Option(names = "--ttl", defaultValue = "3600", description = "TTL of the DS records (default: ${DEFAULT-VALUE}).")
    long ttl;

    @Override
    public Integer call() throws Exception {
      List<ZoneKey> keys = keys();
      Instant now = Instant.now();
      if (keys.stream().noneMatch(k -> k.ksk() && k.timing().published(now))) {
        spec.commandLine().getErr().println("healthctl: " + zoneName() + " has no published key-signing key in " + dir);
        return 1;
      }
      printDs(out(), keys, now, ttl);
      out().flush();
      return 0;
    }
  }

  @Command(name = "rollover", mixinStandardHelpOptions = true,
      description = "Roll ZONE's zone-signing key by pre-publication: a successor published now signs after"
          + " --prepublish, when the old key retires; the old key is deleted --retire later.")
  static final class Rollover extends ZoneKeys {
    @Option(names = "--prepublish", defaultValue = "PT2H",
        description = "At least the DNSKEY TTL plus the time to copy the files to every edge, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration prepublish;

    @Option(names = "--retire", defaultValue = "P1D",
        description = "At least the zone's largest TTL, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration retire;

    @Override
    public Integer call() throws Exception {
      Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
      List<ZoneKey> changed;
      try {
        changed = ZskRollover.plan(zoneName(), keys(), now, prepublish, retire);
      } catch (GeneralSecurityException e) {
        spec.commandLine().getErr().println("healthctl: " + e.getMessage());
        return 1;
      }
      for (ZoneKey k : changed) {
        BindKeyFiles.write(k, dir);
      }
      ZoneKey next = changed.get(0);
      out().println("successor " + next.file() + " (tag " + next.tag() + ") published now, signs from "
          + next.timing().activate());
      for (ZoneKey old : changed.subList(1, changed.size())) {
        out().println("retiring " + old.file() + " (tag " + old.tag() + "): stops signing at "
            + old.timing().inactive() + ", deleted at " + old.timing().delete());
      }
      out().println("copy " + dir.toAbsolutePath() + " to every edge before " + next.timing().activate()
          + "; the edges follow the timing themselves");
      out().flush();
      return 0;
    }
  }

  @Command(name = "keys", mixinStandardHelpOptions = true, description = "List ZONE's keys and their state now.")
  static final class Keys extends ZoneKeys {
    @Override
    public Integer call() throws Exception {
      Instant now = Instant.now();
      List<ZoneKey> keys = keys();
      out().printf("%-34s %-4s %-6s %-17s %-21s %-21s %-21s %s%n", "FILE", "ROLE", "TAG", "STATE", "PUBLISH",
          "ACTIVATE", "INACTIVE", "DELETE");
      for (ZoneKey k : keys) {
        KeyTiming t = k.timing();
        out().printf("%-34s %-4s %-6d %-17s %-21s %-21s %-21s %s%n", k.file(), k.ksk() ? "KSK" : "ZSK", k.tag(),
            ZskRollover.state(k, now), time(t.publish()), time(t.activate()), time(t.inactive()), time(t.delete()));
      }
      if (keys.isEmpty()) {
        out().println("no keys for " + zoneName() + " in " + dir);
      }
      out().flush();
      return keys.isEmpty() ? 1 : 0;
    }

    private static String time(Instant t) {
      return t == null ? "-" : t.toString();
    }
  }
}
